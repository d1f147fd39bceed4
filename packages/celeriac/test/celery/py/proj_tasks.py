"""Python Celery tasks for the interop tests; configured by environment (broker URL, key prefix, queue)."""
import os
import time

from celery import Celery

BROKER = os.environ.get('CELERY_BROKER', 'redis://127.0.0.1:6379/0')
app = Celery('proj', broker=BROKER, backend=BROKER)
app.conf.update(
    broker_transport_options={
        'global_keyprefix': os.environ.get('CELERY_KEYPREFIX', ''),
        'visibility_timeout': float(os.environ.get('CELERY_VISIBILITY', '3600')),
    },
    task_default_queue=os.environ.get('CELERY_QUEUE', 'celery'),
    task_serializer='json',
    result_serializer='json',
    accept_content=['json'],
    worker_prefetch_multiplier=1,
    worker_hijack_root_logger=False,
)


@app.task(name='proj.add')
def add(x, y, z=0):
    return x + y + z


@app.task(name='proj.fail')
def fail(message):
    raise ValueError(message)


@app.task(name='proj.slow', acks_late=True)
def slow(seconds, marker):
    """Sleeps (long enough to be killed meanwhile), then returns its marker."""
    time.sleep(seconds)
    return marker


@app.task(name='proj.flaky', bind=True, max_retries=3)
def flaky(self, failures):
    if self.request.retries < failures:
        raise self.retry(countdown=0.2)
    return self.request.retries
