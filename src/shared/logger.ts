import pino from 'pino';
import type { Config } from '../config.js';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Resolves once everything buffered is written (await it before the process exits, or the last lines are lost). */
  flush(): Promise<void>;
}

// Fields that could carry a secret if a caller ever passed one; they are replaced, never written.
const REDACTED = [
  'authorization',
  'password',
  'token',
  'secret',
  '*.authorization',
  '*.password',
  '*.token',
  '*.secret',
];

/**
 * JSON lines on stderr through pino's asynchronous destination (the event loop never waits for the
 * terminal or pipe): `{time, level, message, ...fields}`. Callers never pass secrets (keys, tokens,
 * passwords) as fields; the usual names are redacted should one slip through.
 */
export function createLogger(
  level: Config['logLevel'],
  destination: pino.DestinationStream = pino.destination({ dest: 2, sync: false }),
): Logger {
  const base = pino(
    {
      level,
      base: undefined,
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED, censor: '[redacted]' },
    },
    destination,
  );
  const write = (at: 'debug' | 'info' | 'warn' | 'error') => (message: string, fields?: Record<string, unknown>) =>
    fields ? base[at](fields, message) : base[at](message);
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    flush: () => new Promise<void>((resolve) => base.flush(() => resolve())),
  };
}
