/** A value class registered (as 'Money') by the end-to-end app and by the tests that send it. */
export class Money {
  constructor(readonly cents: number) {}
}
