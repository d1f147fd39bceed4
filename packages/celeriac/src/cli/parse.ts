/** Argument parsers for the CLI's options, with errors that say what was expected. */
import { InvalidArgumentError } from 'commander';
import { type Duration } from '@celeriac/core';
import { toMilliseconds } from '@celeriac/core/internal';

/** A positive integer. */
export function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('Expected a positive integer.');
  return number;
}

/** A whole number, zero allowed. */
export function wholeNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new InvalidArgumentError('Expected an integer >= 0.');
  return number;
}

/** A duration: milliseconds, or '500ms', '30s', '5m', '1h', '1d'. */
export function duration(value: string): number {
  const asNumber = Number(value);
  try {
    return toMilliseconds((Number.isFinite(asNumber) ? asNumber : value) as Duration);
  } catch {
    throw new InvalidArgumentError(
      'Expected a duration such as 500ms, 30s, 5m or 1h (a bare number means milliseconds).',
    );
  }
}

/** A comma-separated list of names. */
export function list(value: string): string[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) throw new InvalidArgumentError('Expected one or more names separated by commas.');
  return names;
}

/** A repeatable option's values, in the order given (`--flag a --flag b`). */
export function repeated(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A TCP port, 0 (any free port) to 65535. */
export function tcpPort(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > 65_535)
    throw new InvalidArgumentError('Expected a port from 0 to 65535 (0: any free port).');
  return number;
}
