/**
 * Errors across processes with their classes: the worker describes an error of a registered class
 * with its registered name and its own fields (through the codec), and the caller rebuilds an
 * instance of the same class. Other errors travel as name, message, stack and code.
 */
import type { Codec } from '../codec';
import { reviveRemoteError, toRemoteError, type RemoteError } from '../errors';

/** Properties every error has, kept in the RemoteError itself rather than among its fields. */
const STANDARD = new Set(['name', 'message', 'stack', 'cause', 'code']);

/** {@link toRemoteError}, plus the registered class and own fields of an error the app registered. */
export function describeError(error: unknown, codec: Codec): RemoteError {
  const remote = toRemoteError(error);
  if (!(error instanceof Error)) return remote;
  const type = codec.errorTypes.nameOf(error);
  if (type === undefined) return remote;
  remote.type = type;
  const fields = Object.fromEntries(Object.entries(error).filter(([key]) => !STANDARD.has(key)));
  if (Object.keys(fields).length === 0) return remote;
  try {
    remote.fields = codec.stringify(fields, () => `the fields of ${type}`);
  } catch {
    // A field the codec cannot carry: the class, message and stack still travel.
  }
  return remote;
}

/**
 * The error a RemoteError describes: an instance of the registered class named by its `type` (made
 * without calling the constructor, then given the remote message, stack, code and fields), else an
 * `Error` carrying the remote name, message, stack and code.
 */
export function reviveError(remote: RemoteError, codec: Codec): Error {
  const cls = remote.type === undefined ? undefined : codec.errorTypes.classOf(remote.type);
  if (!cls) return reviveRemoteError(remote);
  const error = Object.create(cls.prototype as object) as Error & { code?: string };
  Object.defineProperty(error, 'message', { value: remote.message, writable: true, configurable: true });
  if (remote.name !== (cls.prototype as Error).name)
    Object.defineProperty(error, 'name', { value: remote.name, writable: true, configurable: true });
  if (remote.stack !== undefined)
    Object.defineProperty(error, 'stack', { value: remote.stack, writable: true, configurable: true });
  if (remote.code !== undefined) error.code = remote.code;
  if (remote.fields !== undefined) {
    try {
      Object.assign(error, codec.parse(remote.fields));
    } catch {
      // Fields this side cannot read (a type it did not register): the class and message still hold.
    }
  }
  return error;
}
