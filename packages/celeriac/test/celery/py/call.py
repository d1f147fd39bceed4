"""Calls a task through Python Celery and prints its outcome as one JSON line.

Usage: call.py '<json: {"task", "args", "kwargs", "queue", "options", "timeout"}>'
"""
import json
import sys

from proj_tasks import app

request = json.loads(sys.argv[1])
result = app.send_task(
    request['task'],
    args=request.get('args', []),
    kwargs=request.get('kwargs', {}),
    queue=request.get('queue'),
    **request.get('options', {}),
)
print(json.dumps({'id': result.id}), flush=True)
try:
    value = result.get(timeout=request.get('timeout', 20), propagate=True)
    print(json.dumps({'state': result.state, 'result': value}), flush=True)
except Exception as error:  # the test checks the type Python raised
    print(json.dumps({
        'state': result.state,
        'exc_type': type(error).__name__,
        'exc_module': type(error).__module__,
        'message': str(error),
    }), flush=True)
