/**
 * Running a document's shell walk-through as written: its fenced code blocks read from the Markdown, split
 * into the statements a user would type one after the other, and typed into one bash session (so
 * variables and arrays carry over, as in a terminal), with the values a user copies from an answer — the
 * `<KEY>` a command printed — put in where the text says to.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';

/** One fenced code block: its language and its text, indentation removed. */
export interface CodeBlock {
  readonly lang: string;
  readonly text: string;
}

/** The fenced code blocks of a Markdown file between a heading and the next heading of the same level or higher. */
export function codeBlocks(file: string, heading: string): CodeBlock[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start < 0) throw new Error(`${file} has no heading "${heading}"`);
  const level = /^#+/.exec(heading)?.[0].length ?? 1;
  const blocks: CodeBlock[] = [];
  let open: { indent: number; lang: string; lines: string[] } | undefined;
  for (const line of lines.slice(start + 1)) {
    const fence = /^(\s*)```(\S*)\s*$/.exec(line);
    if (open === undefined) {
      const h = /^(#+)\s/.exec(line);
      if (h !== null && (h[1]?.length ?? 0) <= level) break;
      if (fence !== null) open = { indent: fence[1]?.length ?? 0, lang: fence[2] ?? '', lines: [] };
      continue;
    }
    if (fence !== null && (fence[2] ?? '') === '') {
      blocks.push({ lang: open.lang, text: open.lines.join('\n') });
      open = undefined;
      continue;
    }
    const indent = open.indent;
    open.lines.push(line.slice(Math.min(indent, line.length - line.trimStart().length)));
  }
  return blocks;
}

/** A statement, and the comment lines right after it (what the document shows it prints), without their `# `. */
export interface ShellStatement {
  readonly text: string;
  readonly shown: readonly string[];
}

/**
 * Splits shell text into statements: a statement goes on over lines ending in `\`, over a quoted string
 * left open, and through a here-document to its end marker. Lines holding only a comment are not
 * statements: they are what the statement before them shows.
 */
export function shellStatements(text: string): ShellStatement[] {
  const statements: { text: string; shown: string[] }[] = [];
  let current: string[] = [];
  let single = false;
  let double = false;
  let heredoc: string | undefined;
  for (const line of text.split('\n')) {
    current.push(line);
    if (heredoc !== undefined) {
      if (line.trim() === heredoc) heredoc = undefined;
      else continue;
    } else {
      for (let i = 0; i < line.length; i++) {
        const c = line[i];
        if (single) {
          if (c === "'") single = false;
        } else if (c === '\\') {
          i++;
        } else if (double) {
          if (c === '"') double = false;
        } else if (c === "'") {
          single = true;
        } else if (c === '"') {
          double = true;
        } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) {
          break;
        } else if (c === '<' && line[i + 1] === '<') {
          const marker = /^<<-?\s*['"]?(\w+)['"]?/.exec(line.slice(i));
          if (marker !== null) heredoc = marker[1];
          i++;
        }
      }
      if (heredoc !== undefined || single || double || line.endsWith('\\')) continue;
    }
    const statement = current.join('\n');
    current = [];
    if (statement.split('\n').every((l) => l.trim() === '' || l.trim().startsWith('#'))) {
      const last = statements.at(-1);
      if (last !== undefined) last.shown.push(...statement.split('\n').filter((l) => l.trim() !== '').map((l) => l.trim().replace(/^#\s?/, '')));
      continue;
    }
    statements.push({ text: statement, shown: [] });
  }
  if (current.length > 0) throw new Error(`unfinished statement: ${current.join('\n')}`);
  return statements;
}

/** What one statement printed, and its exit status. */
export interface StatementResult {
  readonly output: string;
  readonly status: number;
}

/** One bash session, fed a statement at a time. */
export class ShellSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private stdout = '';
  private stderrText = '';
  private counter = 0;
  private waiting: (() => void) | undefined;

  constructor(cwd: string, env: NodeJS.ProcessEnv, prelude = '') {
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd, env });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString('utf8');
      this.waiting?.();
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderrText += chunk.toString('utf8')));
    this.child.on('exit', () => this.waiting?.());
    if (prelude !== '') this.child.stdin.write(`${prelude}\n`);
  }

  /** What the session wrote on stderr so far. */
  stderr(): string {
    return this.stderrText;
  }

  /** Types a statement and waits until it is done. */
  async run(statement: string): Promise<StatementResult> {
    const marker = `__walk_through_${++this.counter}__`;
    this.child.stdin.write(`${statement}\nprintf '\\n${marker} %s\\n' "$?"\n`);
    const pattern = new RegExp(`\\n${marker} (\\d+)\\n`);
    for (;;) {
      const m = pattern.exec(this.stdout);
      if (m !== null) {
        const output = this.stdout.slice(0, m.index);
        this.stdout = this.stdout.slice(m.index + m[0].length);
        return { output, status: Number(m[1]) };
      }
      if (this.child.exitCode !== null) throw new Error(`bash exited: ${this.stderrText}`);
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}
