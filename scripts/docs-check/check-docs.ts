/**
 * Checks the README, `docs/**` and `bench/README.md`: every relative link names a file that
 * exists (and a `#anchor` a heading of it), and every `switchyard <command>` shown in a shell
 * block is a command of the CLI (its `--help` exits 0; an action word such as `chain clear` must
 * appear in that usage text).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { anchorsOf, commandsOf, linksOf, type ShownCommand } from './markdown.js';

const run = promisify(execFile);

/** One thing wrong, located in a document. */
export interface DocProblem {
  file: string;
  line: number;
  message: string;
}

/** Answers a command's `--help`: exit status and usage text. */
export type HelpRunner = (command: string) => Promise<{ ok: boolean; usage: string; error?: string }>;

/** `--help` runs at most this many CLI processes at once (each one starts tsx). */
const HELP_CONCURRENCY = 3;

/** The Markdown files the check covers, relative to `root`. */
export function docFiles(root: string): string[] {
  const files = ['README.md', 'bench/README.md'].filter((f) => existsSync(join(root, f)));
  const walk = (dir: string): void => {
    if (!existsSync(join(root, dir))) return;
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk('docs');
  return files;
}

/** Relative links of one file that do not resolve. */
export function checkLinks(root: string, file: string): DocProblem[] {
  const problems: DocProblem[] = [];
  const text = readFileSync(join(root, file), 'utf8');
  for (const { target, line } of linksOf(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: — not ours to check offline
    const [pathPart = '', anchor] = target.split('#', 2);
    const path = pathPart === '' ? join(root, file) : resolve(dirname(join(root, file)), decodeURI(pathPart));
    if (!path.startsWith(resolve(root))) {
      problems.push({ file, line, message: `link ${target} leaves the repository` });
    } else if (!existsSync(path)) {
      problems.push({ file, line, message: `link ${target}: ${relative(root, path)} does not exist` });
    } else if (anchor !== undefined && statSync(path).isFile() && path.endsWith('.md')) {
      if (!anchorsOf(readFileSync(path, 'utf8')).has(anchor)) {
        problems.push({ file, line, message: `link ${target}: no heading with anchor #${anchor}` });
      }
    }
  }
  return problems;
}

/** Runs `node bin/switchyard.js <command> --help` in `root`. */
export function cliHelp(root: string): HelpRunner {
  return async (command) => {
    try {
      const { stdout } = await run(process.execPath, ['bin/switchyard.js', command, '--help'], {
        cwd: root,
        timeout: 30_000,
      });
      return { ok: true, usage: stdout };
    } catch (error) {
      const { code, killed } = error as { code?: number | string; killed?: boolean };
      return {
        ok: false,
        usage: '',
        error: killed ? 'no answer to --help within 30 s' : `--help exited ${code}`,
      };
    }
  };
}

/** The actions a usage text lists (`switchyard chain get …` → `get`), empty when it has none. */
function actionsOf(command: string, usage: string): Set<string> {
  const pattern = new RegExp(`switchyard ${command} ([a-z][a-z0-9-]*)`, 'g');
  return new Set([...usage.matchAll(pattern)].map((m) => m[1] ?? ''));
}

/** Commands shown in the documents that the CLI does not have. */
export async function checkCommands(
  shown: readonly (ShownCommand & { file: string })[],
  help: HelpRunner,
): Promise<DocProblem[]> {
  const names = [...new Set(shown.map((s) => s.command))];
  const answers = new Map<string, Awaited<ReturnType<HelpRunner>>>();
  const next = async (): Promise<void> => {
    for (let name = names.shift(); name !== undefined; name = names.shift())
      answers.set(name, await help(name));
  };
  await Promise.all(Array.from({ length: HELP_CONCURRENCY }, next));
  const problems: DocProblem[] = [];
  for (const s of shown) {
    const answer = answers.get(s.command);
    if (!answer?.ok) {
      problems.push({
        file: s.file,
        line: s.line,
        message: `switchyard ${s.command}: no such command (${answer?.error})`,
      });
      continue;
    }
    const actions = actionsOf(s.command, answer.usage);
    if (actions.size > 0 && (s.action === undefined || !actions.has(s.action))) {
      const shownAs = s.action ? `${s.command} ${s.action}` : s.command;
      problems.push({
        file: s.file,
        line: s.line,
        message: `switchyard ${shownAs}: not an action of ${s.command} (${[...actions].join(', ')})`,
      });
    }
  }
  return problems;
}

const SOURCE_DIRS = ['bin', 'lib', 'lambda'];

/**
 * Anchored pointers into the docs from source comments (`docs/design.md#the-attempt-loop`): the
 * file must exist and have that heading.
 */
export function checkSourcePointers(root: string): DocProblem[] {
  const problems: DocProblem[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(join(root, dir))) return;
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|js)$/.test(entry.name)) {
        readFileSync(join(root, path), 'utf8')
          .split('\n')
          .forEach((text, index) => {
            for (const m of text.matchAll(/\bdocs\/([\w./-]+\.md)#([\w-]+)/g)) {
              const doc = join(root, 'docs', m[1] ?? '');
              const where = { file: path, line: index + 1 };
              if (!existsSync(doc)) problems.push({ ...where, message: `docs/${m[1]} does not exist` });
              else if (!anchorsOf(readFileSync(doc, 'utf8')).has(m[2] ?? '')) {
                problems.push({ ...where, message: `docs/${m[1]} has no heading with anchor #${m[2]}` });
              }
            }
          });
      }
    }
  };
  for (const dir of SOURCE_DIRS) walk(dir);
  return problems;
}

/** Every problem in the documents under `root`, links first, then source pointers, then commands. */
export async function checkDocs(root: string, help: HelpRunner = cliHelp(root)): Promise<DocProblem[]> {
  const files = docFiles(root);
  const links = files.flatMap((file) => checkLinks(root, file));
  const shown = files.flatMap((file) =>
    commandsOf(readFileSync(join(root, file), 'utf8')).map((s) => ({ ...s, file })),
  );
  return [...links, ...checkSourcePointers(root), ...(await checkCommands(shown, help))];
}
