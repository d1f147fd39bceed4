import 'reflect-metadata';
import { runtimeOf } from '@celeriac/core/internal';
import { Celeriac, task } from 'celeriac';
import { useApp } from './support/app';

describe('function form: app.task(name, fn, options)', () => {
  const t = useApp();

  it('returns a handle named after the task that runs locally when called and remotely with delay', async () => {
    const add = t.app.task('math.add', (a: number, b: number) => a + b, { queue: 'math', priority: 3 });
    expect(add.name).toBe('math.add');
    expect(add.options).toEqual({ queue: 'math', priority: 3 });
    expect(add(2, 3)).toBe(5);
    await t.startWorker({ queues: ['math'] });
    await expect(add.delay(2, 3)).resolves.toBe(5);
    await expect(add.applyAsync([4, 5])).resolves.toBe(9);
  });

  it('sends many calls with delayMany, and any task by name with sendTask', async () => {
    const double = t.app.task('double', (n: number) => n * 2);
    await t.startWorker();
    await expect(Promise.all(double.delayMany([[1], [2], [3]]))).resolves.toEqual([2, 4, 6]);
    await expect(t.app.sendTask<number>('double', [21])).resolves.toBe(42);
  });

  it('refuses a duplicate name, an empty name and a missing function', () => {
    t.app.task('once', () => 1);
    expect(() => t.app.task('once', () => 2)).toThrow(
      expect.objectContaining({ code: 'CELERIAC_DUPLICATE_TASK', message: expect.stringContaining('"once"') }),
    );
    expect(() => t.app.task('', () => 1)).toThrow(expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION' }));
    expect(() => t.app.task('no.fn', 'not a function' as never)).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION' }),
    );
  });
});

describe('decorator form: @task with app.register(instance)', () => {
  const t = useApp();

  class Mailer {
    readonly sent: string[] = [];
    constructor(private readonly from: string) {}

    @task({ name: 'mail.send', retries: 2 })
    async send(to: string, body: string): Promise<string> {
      this.sent.push(to);
      return `${this.from} -> ${to}: ${body}`;
    }

    @task()
    count(): number {
      return this.sent.length;
    }

    notATask(): string {
      return 'plain';
    }
  }

  it('registers decorated methods bound to the instance, named by option or ClassName.method', async () => {
    const mailer = new Mailer('me@x');
    const mail = t.app.register(mailer);
    expect(mail.send.name).toBe('mail.send');
    expect(mail.send.options).toEqual({ retries: 2 });
    expect(mail.count.name).toBe('Mailer.count');
    expect(Object.keys(mail).sort()).toEqual(['count', 'send']);
    expect(runtimeOf(t.app).registry.names()).toEqual(['mail.send', 'Mailer.count']);
    await t.startWorker({ concurrency: 1 });
    await expect(mail.send.delay('you@y', 'hi')).resolves.toBe('me@x -> you@y: hi');
    await expect(mail.count.delay()).resolves.toBe(1);
    expect(mailer.sent).toEqual(['you@y']);
  });

  it('throws CELERIAC_NOT_A_TASK when a method that is not a task is read from the handles', () => {
    const mail = t.app.register(new Mailer('me@x'));
    // The type lists every public method (types cannot see decorators): the read itself throws.
    expect(() => mail.notATask).toThrow(
      expect.objectContaining({
        code: 'CELERIAC_NOT_A_TASK',
        message: expect.stringContaining('Mailer.notATask is not a task'),
      }),
    );
    expect(mail.send.name).toBe('mail.send');
  });

  it('returns handles for exactly the methods named, registering every decorated one', () => {
    const mail = t.app.register(new Mailer('me@x'), ['send']);
    expect(Object.keys(mail)).toEqual(['send']);
    expect(runtimeOf(t.app).registry.names()).toEqual(['mail.send', 'Mailer.count']);
  });

  it('refuses a list that names a method that is not a task, registering nothing', () => {
    expect(() => t.app.register(new Mailer('me@x'), ['send', 'notATask'])).toThrow(
      expect.objectContaining({ code: 'CELERIAC_NOT_A_TASK' }),
    );
    expect(runtimeOf(t.app).registry.names()).toEqual([]);
  });

  it('finds decorated methods inherited from a base class', () => {
    class LoudMailer extends Mailer {
      @task()
      shout(text: string): string {
        return text.toUpperCase();
      }
    }
    const loud = t.app.register(new LoudMailer('me@x'));
    expect([loud.shout.name, loud.send.name, loud.count.name]).toEqual([
      'LoudMailer.shout',
      'mail.send',
      'LoudMailer.count',
    ]);
    expect(loud.shout('hey')).toBe('HEY');
  });

  it('refuses a second instance under the same task names, and a class without @task methods', () => {
    t.app.register(new Mailer('a'));
    expect(() => t.app.register(new Mailer('b'))).toThrow(expect.objectContaining({ code: 'CELERIAC_DUPLICATE_TASK' }));
    class Plain {
      run(): number {
        return 1;
      }
    }
    expect(() => t.app.register(new Plain())).toThrow(
      expect.objectContaining({ code: 'CELERIAC_NO_TASKS', message: expect.stringContaining('Plain') }),
    );
  });

  it('lets a function-form task and a decorated task collide by name', () => {
    t.app.task('mail.send', () => 'taken');
    expect(() => t.app.register(new Mailer('a'))).toThrow(expect.objectContaining({ code: 'CELERIAC_DUPLICATE_TASK' }));
  });
});

describe('apps are independent', () => {
  it('registers the same name in two apps without conflict', async () => {
    const first = new Celeriac();
    const second = new Celeriac();
    try {
      first.task('same', () => 1);
      expect(() => second.task('same', () => 2)).not.toThrow();
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
