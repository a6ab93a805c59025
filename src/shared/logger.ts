import type { Config } from '../config.js';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

/** A JSON-lines logger on stderr. Callers never pass secrets (keys, tokens, passwords) as fields. */
export function createLogger(level: Config['logLevel']): Logger {
  const threshold = LEVELS.indexOf(level);
  const write = (at: (typeof LEVELS)[number]) => (message: string, fields?: Record<string, unknown>) => {
    if (LEVELS.indexOf(at) < threshold) return;
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields })}\n`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
