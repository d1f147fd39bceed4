/** Waits by task id: usually one per id, so an array is made only for an id with several. */
export class WaitsById<W extends object> {
  private readonly byId = new Map<string, W | W[]>();

  /** Adds `wait` under `id`. */
  add(id: string, wait: W): void {
    const there = this.byId.get(id);
    if (there === undefined) this.byId.set(id, wait);
    else if (Array.isArray(there)) there.push(wait);
    else this.byId.set(id, [there, wait]);
  }

  /** True when some wait is under `id`. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** How many ids have a wait. */
  get size(): number {
    return this.byId.size;
  }

  /** The ids with a wait. */
  ids(): string[] {
    return [...this.byId.keys()];
  }

  /** The waits under `id`: a copy, so they may be settled (and removed) while it is walked. */
  get(id: string): W[] {
    const there = this.byId.get(id);
    if (there === undefined) return [];
    return Array.isArray(there) ? [...there] : [there];
  }

  /** Every wait, once each. */
  all(): Set<W> {
    const waits = new Set<W>();
    for (const there of this.byId.values()) for (const wait of Array.isArray(there) ? there : [there]) waits.add(wait);
    return waits;
  }

  /** Takes `wait` out from under `id`. */
  delete(id: string, wait: W): void {
    const there = this.byId.get(id);
    if (there === wait) this.byId.delete(id);
    else if (Array.isArray(there)) {
      const at = there.indexOf(wait);
      if (at >= 0) there.splice(at, 1);
      if (there.length === 1) this.byId.set(id, there[0] as W);
    }
  }
}
