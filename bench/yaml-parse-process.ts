/**
 * The floor of the whole-process cold validate figure: a `node` process that does nothing
 * but read the listed files and parse them with the `yaml` package (positions kept, as the
 * loader keeps them). `node dist-bench/bench/yaml-parse-process.js DIR LIST` where LIST holds
 * one path relative to DIR per line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';

const [dir, list] = process.argv.slice(2);
if (dir === undefined || list === undefined) throw new Error('usage: yaml-parse-process.js DIR LIST');
let documents = 0;
for (const file of readFileSync(list, 'utf8').split('\n')) {
  if (file === '') continue;
  const parsed = parseAllDocuments(readFileSync(join(dir, file), 'utf8'), { lineCounter: new LineCounter() });
  documents += Array.isArray(parsed) ? parsed.length : 0;
}
process.stdout.write(`${documents} documents\n`);
