/**
 * Canvas type tests: `npm test` type-checks this file before jest runs, so each `expectType` fails
 * the build if a workflow's handle type drifts, and each `@ts-expect-error` if a wrong use compiles.
 */
/* eslint-disable @typescript-eslint/no-unused-vars -- each workflow value exists for its type, checked by expectType */
import { chain, chord, group, type AsyncResult, type GroupResult } from 'celeriac';
import { useApp } from './support/app';

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | undefined {
  return undefined;
}

const t = useApp();

/** Never called: the body only has to compile (or fail to, where marked). */
export function compileOnly(): void {
  const add = t.app.task('types.add', (a: number, b: number) => a + b);
  const label = t.app.task('types.label', (value: number, prefix: string) => `${prefix}${value}`);
  const sum = t.app.task('types.sum', (values: number[]) => values.reduce((total, value) => total + value, 0));

  const chained = chain(add.s(1, 1), add.s(2), label.s('n=')).applyAsync();
  expectType<Equal<typeof chained, AsyncResult<string>>>();

  const grouped = group([add.s(1, 1), label.si(1, 'x')]).applyAsync();
  expectType<Equal<typeof grouped, GroupResult<[number, string]>>>();

  const listed = group([1, 2, 3].map((value) => add.s(value, value))).applyAsync();
  expectType<Equal<typeof listed, GroupResult<number[]>>>();

  const chorded = chord([add.s(1, 1), add.s(2, 2)], sum.s()).applyAsync();
  expectType<Equal<typeof chorded, AsyncResult<number>>>();

  const endsInGroup = chain(add.s(1, 1), group([add.s(1), add.s(2)])).applyAsync();
  expectType<Equal<typeof endsInGroup, GroupResult<[number, number]>>>();

  // @ts-expect-error the chain's handle is the last step's: a string, not a number
  const wrong: AsyncResult<number> = chain(add.s(1, 1), label.s('n=')).applyAsync();
  void wrong;
  // @ts-expect-error link takes signatures, not functions
  add.applyAsync([1, 2], { link: () => 1 });
  // @ts-expect-error dependsOn takes ids or result handles
  add.applyAsync([1, 2], { dependsOn: [42] });
}

it('compiles (the checks above run in the type-check step of npm test)', () => {
  expect(typeof compileOnly).toBe('function');
});
