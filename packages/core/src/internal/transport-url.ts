/**
 * Broker and backend URLs as `URL` objects, including those that list several hosts
 * (`redis+sentinel://s1:26379,s2:26379/mymaster`, `redis+cluster://h1:7000,h2:7001`), which the
 * WHATWG URL parser refuses: such a list is kept in the URL's `host`, each entry percent-encoded, and
 * {@link transportHosts} reads it back.
 */

/** An authority with a comma in its host part: scheme, user info, host list, the rest. */
const HOST_LIST = /^([a-z][a-z\d+.-]*:\/\/)([^/?#]*@)?([^/?#@]*,[^/?#@]*)(.*)$/is;

/**
 * Parses a broker or backend URL; a comma-separated host list is accepted.
 * @throws TypeError (as `new URL`) when it is no URL.
 */
export function parseTransportUrl(target: string): URL {
  try {
    return new URL(target);
  } catch (error) {
    const listed = HOST_LIST.exec(target);
    if (!listed) throw error;
    const [, scheme = '', userInfo = '', hosts = '', rest = ''] = listed;
    return new URL(`${scheme}${userInfo}${hosts.split(',').map(encodeURIComponent).join(',')}${rest}`);
  }
}

/** The hosts of a URL from {@link parseTransportUrl} as written, e.g. `['s1:26379', 's2:26379']`. */
export function transportHosts(url: URL): string[] {
  return url.host === '' ? [] : url.host.split(',').map((host) => decodeURIComponent(host));
}

/** A URL from {@link parseTransportUrl} as text, its host list written as given (not percent-encoded). */
export function transportUrlText(url: URL): string {
  const hosts = transportHosts(url);
  if (hosts.length < 2) return url.toString();
  const userInfo = url.username || url.password ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  return `${url.protocol}//${userInfo}${hosts.join(',')}${url.pathname}${url.search}${url.hash}`;
}
