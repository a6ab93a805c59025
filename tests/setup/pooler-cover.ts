/**
 * `tsx tests/setup/pooler-cover.ts <record>`: the test files .ci/run runs again behind PgBouncer, chosen from
 * what tests/setup/pooler-probe.ts recorded (`<path>\t<seconds>\t<statement digest>` lines): files that together
 * run every pooler-sensitive statement any file ran, at a small cost in time. Greedy weighted set cover: the
 * file that runs the most statements not yet covered per second it took comes first, until none is left
 * uncovered (ties: the path first in order), then any chosen file whose statements the others all run is left out.
 * Prints their paths, one per line, in order.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface RecordedFile {
  path: string;
  seconds: number;
  statements: Set<string>;
}

/** Files covering every statement of `lines` (the record's lines), by the rule above. */
export function coveringFiles(lines: string[]): string[] {
  const files = new Map<string, RecordedFile>();
  for (const line of lines) {
    const [path, seconds, statement] = line.split('\t');
    if (!statement) continue;
    const file = files.get(path) ?? { path, seconds: Number(seconds) || 0, statements: new Set() };
    file.statements.add(statement);
    files.set(path, file);
  }
  const uncovered = new Set([...files.values()].flatMap((file) => [...file.statements]));
  const candidates = [...files.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
  const chosen: RecordedFile[] = [];
  while (uncovered.size > 0) {
    let best = candidates[0];
    let bestValue = 0;
    for (const file of candidates) {
      let fresh = 0;
      for (const statement of file.statements) if (uncovered.has(statement)) fresh++;
      // One second more than it took: the start of a file (its app, its database) costs too.
      const value = fresh / (file.seconds + 1);
      if (value > bestValue) [best, bestValue] = [file, value];
    }
    chosen.push(best);
    for (const statement of best.statements) uncovered.delete(statement);
  }
  // A file chosen early whose statements the later ones all run is left out again (the slowest first).
  for (const file of [...chosen].sort((a, b) => b.seconds - a.seconds)) {
    const others = chosen.filter((other) => other !== file);
    if ([...file.statements].every((statement) => others.some((other) => other.statements.has(statement))))
      chosen.splice(chosen.indexOf(file), 1);
  }
  return chosen.map((file) => file.path).sort();
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const record = process.argv[2];
  if (!record) {
    console.error('usage: tsx tests/setup/pooler-cover.ts <record>');
    process.exit(2);
  }
  const files = coveringFiles(readFileSync(record, 'utf8').split('\n'));
  if (files.length > 0) console.log(files.join('\n'));
}
