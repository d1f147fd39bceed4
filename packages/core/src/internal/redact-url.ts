/** URLs for messages and logs, without their passwords. */
import { parseTransportUrl } from './transport-url';

/** The URL's password, written between `user:` and `@` (a valid URL percent-encodes any `@` in it). */
const PASSWORD = /^([a-z][a-z\d+.-]*:\/\/[^:@/?#]*:)[^@/?#]*@/i;

/**
 * The URL with its password replaced by `***`, as written otherwise (a host list stays a list). A
 * malformed URL (one a message is about) gets whatever stands in the password's place hidden too.
 */
export function redactUrl(url: string): string {
  try {
    if (!parseTransportUrl(url).password) return url;
  } catch {
    // Not a URL: hide what looks like a password all the same.
  }
  return url.replace(PASSWORD, '$1***@');
}
