import { Codec } from '@celeriac/core';
import { describeError, reviveError } from '@celeriac/core/internal';

class Declined extends Error {
  constructor(
    message: string,
    readonly amount: number,
  ) {
    super(message);
    this.name = 'Declined';
  }
}

function codecWith(...classes: Array<typeof Declined>): Codec {
  const codec = new Codec();
  for (const cls of classes) codec.errorTypes.register(cls);
  return codec;
}

describe('errors of registered classes across processes', () => {
  it('describes a registered error with its class name and own fields, and revives the same class', () => {
    const remote = describeError(Object.assign(new Declined('no', 3), { code: 'E_NO' }), codecWith(Declined));
    expect(remote).toMatchObject({
      name: 'Declined',
      type: 'Declined',
      message: 'no',
      code: 'E_NO',
      fields: expect.any(String),
    });
    const revived = reviveError(JSON.parse(JSON.stringify(remote)), codecWith(Declined));
    expect(revived).toBeInstanceOf(Declined);
    expect(revived).toMatchObject({ name: 'Declined', message: 'no', amount: 3, code: 'E_NO', stack: remote.stack });
  });

  it('leaves errors of unregistered classes as name, message, stack and code', () => {
    expect(describeError(new Declined('no', 3), new Codec())).toEqual({
      name: 'Declined',
      message: 'no',
      stack: expect.any(String),
    });
  });

  it('revives a plain Error with the remote name when the caller did not register the class', () => {
    const remote = describeError(new Declined('no', 3), codecWith(Declined));
    const revived = reviveError(remote, new Codec());
    expect(revived).not.toBeInstanceOf(Declined);
    expect(revived).toMatchObject({ name: 'Declined', message: 'no' });
  });

  it('still sends the class and message when a field does not serialize', () => {
    const error = Object.assign(new Declined('no', 3), { callback: () => undefined });
    const remote = describeError(error, codecWith(Declined));
    expect(remote.fields).toBeUndefined();
    expect(reviveError(remote, codecWith(Declined))).toBeInstanceOf(Declined);
  });
});
