"""The Python side of the example: a Celery app on the same Redis, speaking JSON."""
import os

from celery import Celery, chord

REDIS_URL = os.environ.get('REDIS_URL', 'redis://127.0.0.1:6379/0')
app = Celery('proj', broker=REDIS_URL, backend=REDIS_URL)
app.conf.update(
    task_serializer='json',
    result_serializer='json',
    accept_content=['json'],
    # The same key prefix as the TypeScript app's `celery.keyPrefix`.
    broker_transport_options={'global_keyprefix': os.environ.get('CELERY_KEYPREFIX', '')},
    task_default_queue='py',
    # Remote control stays on (Celery's default): a revoke from TypeScript reaches the worker through it.
    worker_hijack_root_logger=False,
)


@app.task(name='proj.add')
def add(x, y, z=0):
    return x + y + z


@app.task(name='proj.charge')
def charge(amount):
    if amount > 100:
        raise ValueError(f'amount {amount} is over the limit')
    return f'charged {amount}'


@app.task(name='proj.join')
def join(greetings):
    return ' '.join(greetings)


if __name__ == '__main__':
    # `python3 proj.py`: call the TypeScript task the way any Python code would.
    greeting = app.signature('ts.greet', args=['Ada'], kwargs={'punctuation': '!'}, queue='ts').delay()
    print(f'python: ts.greet.delay("Ada", punctuation="!") = {greeting.get(timeout=20)!r}', flush=True)
    greeting.forget()
    # A chord whose header runs on the Celeriac worker and whose body runs on the Python worker. The
    # body names its queue: the Celeriac worker that sends it does not know Python's routing.
    header = [app.signature('ts.greet', args=[name], queue='ts') for name in ('Ada', 'Grace')]
    joined = chord(header)(join.s().set(queue='py'))
    print(f'python: chord(ts.greet x 2)(proj.join) = {joined.get(timeout=20)!r}', flush=True)
    for member in [joined, *joined.parent.results]:
        member.forget()
