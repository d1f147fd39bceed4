/** URLs for messages and logs, without their passwords. */
import { isClusterUrl, redactClusterUrl } from './cluster-url';

/** The URL with its password replaced by `***`; a string that is not a URL is returned as it is. */
export function redactUrl(url: string): string {
  // A cluster URL's host list is not a WHATWG URL.
  if (isClusterUrl(url)) return redactClusterUrl(url);
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
