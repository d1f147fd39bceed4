/** URLs for messages and logs, without their passwords. */
import { parseTransportUrl } from '@celeriac/core/internal';

/** The URL's password, written between `user:` and `@` (a valid URL percent-encodes any `@` in it). */
const PASSWORD = /^([a-z][a-z\d+.-]*:\/\/[^:@/?#]*:)[^@/?#]*@/i;

/**
 * The URL with its password replaced by `***`, as written otherwise (a host list stays a list);
 * a string that is not a URL is returned as it is.
 */
export function redactUrl(url: string): string {
  try {
    if (!parseTransportUrl(url).password) return url;
    return url.replace(PASSWORD, '$1***@');
  } catch {
    return url;
  }
}
