/** `comment-filter` → `CommentFilter`: stable PascalCase ids, so renaming nothing replaces nothing. */
export function pascalConstructId(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((w) => w[0]?.toUpperCase() + w.slice(1)).join('') || 'Pipeline'; // the id this fallback always had
}

/**
 * PascalCase construct ids for a set of names (schedules), refusing two names that would share
 * one (`a-b` and `a_b`): a clear synth error instead of CDK's duplicate-id failure.
 */
export function constructIdsFor(names: readonly string[], what: string): Map<string, string> {
  const ids = new Map<string, string>();
  const owners = new Map<string, string>();
  for (const name of names) {
    const id = pascalConstructId(name);
    const other = owners.get(id);
    if (other !== undefined)
      throw new Error(`${what} '${other}' and '${name}' would share the construct id '${id}'; rename one`);
    owners.set(id, name);
    ids.set(name, id);
  }
  return ids;
}
