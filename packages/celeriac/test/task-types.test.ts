/**
 * Type tests: `npm test` type-checks this file before jest runs, so each `@ts-expect-error` fails
 * the build if the types stop rejecting the call below it, and each `expectType` if a type drifts.
 */
import 'reflect-metadata';
import { task, type AsyncResult, type CeleriacError, type Signature, type TaskHandle } from 'celeriac';
import { useApp } from './support/app';

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | undefined {
  return undefined;
}

class Greeter {
  readonly greeting = 'hello';

  @task()
  async greet(name: string, times: number): Promise<string> {
    return `${this.greeting} ${this.polite(name)}`.repeat(times);
  }

  /** A public method that is not a task. */
  shout(text: string): string {
    return text.toUpperCase();
  }

  private polite(name: string): string {
    return name;
  }
}

/** A `@task` method goes through the same check as `app.task`'s function. */
class Notifier {
  // @ts-expect-error a decorated method's arguments must cross to a worker too
  @task()
  async notify(done: () => void): Promise<void> {
    done();
  }

  // @ts-expect-error and so must its result
  @task()
  async later(): Promise<() => void> {
    return () => undefined;
  }

  @task()
  async fine(when: Date, totals: Map<string, bigint>): Promise<{ when: Date; count: number }> {
    return { when, count: totals.size };
  }
}
void Notifier;

const t = useApp();

function declareTasks() {
  const add = t.app.task('types.add', (a: number, b: number) => a + b);
  const fetchUser = t.app.task('types.user', async (id: string) => ({ id, born: new Date(0) }));
  const greeter = t.app.register(new Greeter());
  return { add, fetchUser, greeter };
}

/** Never called: the body only has to compile (or fail to, where marked). */
export function compileOnly(): void {
  const { add, fetchUser, greeter } = declareTasks();

  // @ts-expect-error a string is not a number
  add.delay(1, '2');
  // @ts-expect-error a missing argument
  add.delay(1);
  // @ts-expect-error an extra argument
  add.delay(1, 2, 3);
  // @ts-expect-error applyAsync takes the arguments as a tuple of the right types
  add.applyAsync([1, 'x']);
  // @ts-expect-error applyAsync options are checked too
  add.applyAsync([1, 2], { countdown: '10 parsecs' });
  // @ts-expect-error unknown call options are rejected
  add.applyAsync([1, 2], { cuontdown: 5 });
  // @ts-expect-error the decorated method's signature types its handle
  greeter.greet.delay('ann', 'twice');
  // @ts-expect-error fields of the instance do not become handles
  void greeter.greeting;
  // @ts-expect-error private methods do not become handles
  void greeter.polite;
  // Without a list, a public method that is not a task has a handle in the type (reading it throws).
  expectType<Equal<keyof typeof greeter, 'greet' | 'shout'>>();
  const named = t.app.register(new Greeter(), ['greet']);
  expectType<Equal<keyof typeof named, 'greet'>>();
  // @ts-expect-error with a list, only the named methods have handles
  void named.shout;
  // @ts-expect-error the list names methods of the class
  t.app.register(new Greeter(), ['greeting']);
  // @ts-expect-error the list names methods of the class
  t.app.register(new Greeter(), ['nope']);
  named.greet.delay('ann', 1);
  // @ts-expect-error a partial signature fixes a tail of the arguments, of the right types
  add.s('2');
  // @ts-expect-error an immutable signature needs every argument
  add.si(1);
  // @ts-expect-error task options are typed from the result
  t.app.task('types.bad-hook', () => 1, { onSuccess: (result: string) => void result });

  // Arguments and results must cross to a worker: the task's types refuse what cannot.
  // @ts-expect-error a function argument cannot cross
  t.app.task('types.callback', (done: () => void) => done());
  // @ts-expect-error nor a Promise (an argument not awaited), inside a list too
  t.app.task('types.pending', (ids: Array<Promise<string>>) => ids.length);
  // @ts-expect-error nor a symbol in a plain object's field
  t.app.task('types.symbol', (options: { key: symbol }) => String(options.key));
  // @ts-expect-error nor a result that is a function
  t.app.task('types.returns-fn', () => () => 1);
  // @ts-expect-error nor one inside a Map
  t.app.task('types.map-of-fns', () => new Map<string, () => void>());
  // What can cross compiles: data, Dates, Maps, bigints, errors, class instances (checked at send), async results.
  t.app.task('types.rich', (when: Date, totals: Map<string, bigint>, greeter: Greeter) => ({ when, totals, greeter }));
  t.app.task('types.async', async (list: number[]) => Promise.resolve(list.map((n) => new Error(String(n)))));

  const sum = add.delay(1, 2);
  // @ts-expect-error the awaited value is a number, not a string
  const wrong: Promise<string> = (async () => await sum)();
  void wrong;
  void fetchUser;
}

describe('typed task handles', () => {
  it('type the arguments of delay and the awaited result from the task function', async () => {
    const { add, fetchUser, greeter } = declareTasks();
    await t.startWorker();

    const sum = add.delay(1, 2);
    expectType<Equal<typeof sum, AsyncResult<number>>>();
    const value = await sum;
    expectType<Equal<typeof value, number>>();
    expect(value).toBe(3);

    const user = await fetchUser.delay('u1');
    expectType<Equal<typeof user, { id: string; born: Date }>>();
    expect(user.born).toBeInstanceOf(Date);

    const greeting = await greeter.greet.delay('ann', 2);
    expectType<Equal<typeof greeting, string>>();
    expect(greeting).toBe('hello annhello ann');
    expectType<Equal<typeof greeter.greet, TaskHandle<[name: string, times: number], Promise<string>>>>();

    const unchecked = await t.app.result<number>(sum.id).get({ propagate: false });
    expectType<Equal<typeof unchecked, number | CeleriacError>>();
    expect(unchecked).toBe(3);

    const partial = add.s(2);
    expectType<Equal<typeof partial, Signature<number>>>();
    await expect(partial.delay(40)).resolves.toBe(42);
  });
});
