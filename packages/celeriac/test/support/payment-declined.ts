/** An error class with fields of its own, registered by the tests of error classes across processes. */
export class PaymentDeclined extends Error {
  constructor(
    message: string,
    readonly amount: number,
    readonly at: Date,
  ) {
    super(message);
    this.name = 'PaymentDeclined';
  }
}
