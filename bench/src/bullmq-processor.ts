/** BullMQ's sandboxed processor for the pool benchmark: a no-op, like Celeriac's. */
export default async function noop(job: { data: { i: number } }): Promise<number> {
  return job.data.i;
}
