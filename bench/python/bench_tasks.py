"""The Python Celery side of the RabbitMQ lane: a no-op task on the broker and result backend the bench names
(BENCH_BROKER, BENCH_BACKEND), JSON only, Celery's defaults otherwise."""
import os

from celery import Celery

app = Celery('bench', broker=os.environ['BENCH_BROKER'], backend=os.environ['BENCH_BACKEND'])
app.conf.update(task_serializer='json', result_serializer='json', accept_content=['json'],
                worker_hijack_root_logger=False)


@app.task(name='bench.noop')
def noop(i):
    return i
