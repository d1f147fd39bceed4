/**
 * Broker and backend URLs as the app reads them. A URL whose authority lists several hosts
 * (`redis+cluster://h1:7000,h2:7001`) is not a WHATWG URL; it is read with its first host, which is
 * enough to pick the transport by scheme: the transport reads the whole list from the text.
 */

const HOST_LIST = /^([a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?[^,/?#]*),[^/?#]*/i;

/** Parses a broker or backend URL (see the module comment); throws as `new URL` does. */
export function parseTransportUrl(text: string): URL {
  return new URL(text.replace(HOST_LIST, '$1'));
}
