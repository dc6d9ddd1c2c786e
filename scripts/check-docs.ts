/**
 * `npm run check:docs`: every relative link in README.md, docs/ and bench/README.md resolves, and
 * every `switchyard` command they show exists. Prints one line per problem; exit 1 if any.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkDocs } from './docs-check/check-docs.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const problems = await checkDocs(root);
for (const p of problems) console.error(`${p.file}:${p.line}: ${p.message}`);
console.log(
  problems.length === 0 ? 'docs: every link and command checks out' : `docs: ${problems.length} problem(s)`,
);
process.exitCode = problems.length === 0 ? 0 : 1;
