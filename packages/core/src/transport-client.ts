/**
 * A connection object made by the caller, such as the ioredis client `Celeriac` accepts as its broker.
 * Core never looks inside one: the app subclass that knows the transport recognizes it and builds the
 * broker and backend on it.
 */
declare const transportClient: unique symbol;

/**
 * A client object handed to the app in place of a URL (`Celeriac`: an ioredis `Redis` or `Cluster`).
 * Opaque to core; the brand keeps it apart from a Broker or ResultBackend in the types.
 */
export interface TransportClient {
  readonly [transportClient]: 'TransportClient';
}
