/** URLs for messages and logs, without their passwords. */

/** The URL with its password replaced by `***`; a string that is not a URL is returned as it is. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
