/**
 * The pino root logger. One per process (or per in-process CLI run); modules take
 * `logger.child({ component })`. Secrets are kept out twice: callers never put them in log
 * objects, and the redaction paths below catch the places they could slip in (headers).
 */
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import { PinoPretty } from 'pino-pretty';

export type { Logger } from 'pino';

export type LogFormat = 'json' | 'pretty';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Paths pino censors wherever they appear in a log object. */
const REDACT_PATHS: readonly string[] = [
  'accessKey',
  'headers.AccessKey',
  'headers.accesskey',
  'headers.authorization',
  'headers["x-hub-signature-256"]',
  'headers["x-signature"]',
  '*.accessKey',
  '*.headers.AccessKey',
  '*.headers.accesskey',
  'secret',
  'secrets',
  '*.secret',
];

export interface CreateLoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  /** Where lines go; default stdout. Tests pass a stream they read back. */
  destination?: DestinationStream | { write(chunk: string): unknown };
}

/** Builds the root logger. `pretty` renders synchronously through pino-pretty (no worker thread). */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const loggerOptions: LoggerOptions = {
    level: options.level ?? 'info',
    base: { name: 'edgesync' },
    redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  const destination = (options.destination ?? process.stdout) as DestinationStream;
  if (options.format === 'pretty') {
    return pino(
      loggerOptions,
      PinoPretty({ destination, colorize: false, sync: true, translateTime: 'SYS:HH:MM:ss.l' }),
    );
  }
  return pino(loggerOptions, destination);
}

/** A logger that drops everything, for library use and tests that do not read logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
