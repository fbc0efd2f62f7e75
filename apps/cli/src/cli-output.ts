import { createColors } from 'picocolors';
import type { Paint } from '@ioa/gateway-client';

/** Where the CLI writes, and how: colours only on a terminal without NO_COLOR; JSON for scripts. */
export interface CliOutput {
  paint: Paint;
  json: boolean;
  /** Longest excerpt on a line: the terminal's width, or 100 characters in a pipe or file. */
  excerpt: number;
  line(text?: string): void;
  error(text: string): void;
  printJson(value: unknown): void;
}

export function cliOutput(options: { json: boolean; colour: boolean; columns: number | undefined }): CliOutput {
  const colours = createColors(options.colour && !options.json);
  return {
    paint: {
      dim: colours.dim,
      bold: colours.bold,
      red: colours.red,
      green: colours.green,
      yellow: colours.yellow,
      blue: colours.blue,
      magenta: colours.magenta,
      cyan: colours.cyan,
    },
    json: options.json,
    excerpt: options.columns ? Math.max(40, options.columns - 50) : 100,
    line: (text = '') => process.stdout.write(`${text}\n`),
    error: (text) => process.stderr.write(`${text}\n`),
    printJson: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  };
}
