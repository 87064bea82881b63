"""The collection's modules as the suites drive them against the simulator's fixture: one entry per
module. The unit tests of every module (tests/unit: faults, bad input, secrets) and the bench read it;
tests/unit/test_module_checklist.py checks that every module has an entry.

An entry holds the arguments that work against the fixture (a writer's change something), the
request that reads and, for a writer, the request that writes, as (method, path) without the
query, and the object that the write changes (kind, id), the arguments that change nothing, and
two argument sets that, run one after the other, change the object every time.
"""

from .fixture_ids import (ALERTS, DASHBOARD_HEALTH, DASHBOARD_INGESTION, PIPE_KAFKA, PIPE_OBJECT_STORAGE, RPE, SERVICE_PROD,
                          SOURCE_METRICS, pipe_path, service_path)

PROD = dict(service_id=SERVICE_PROD)
ATTACHABLE_ENDPOINT = 'vpce-0f9e8d7c6b5a49382'  # available to the prod service, not attached


class Module:
    """One module: name, api ('cloud' or 'observability'), args, read, and for a writer write,
    resource, unchanged and toggle (see the module's docstring)."""

    def __init__(self, name, api, args, read, write=None, resource=None, unchanged=None, toggle=None):
        self.name, self.api, self.args, self.read, self.write = name, api, args, read, write
        self.resource, self.unchanged, self.toggle = resource, unchanged, toggle

    @property
    def fqcn(self):
        return 'engine.cloud.' + self.name

    def __repr__(self):
        return self.name


def _pipe(pipe_id, **args):
    return dict(PROD, pipe_id=pipe_id, **args)


MODULES = [
    Module('service_info', 'cloud', PROD, ('GET', service_path())),
    Module('pipe_info', 'cloud', _pipe(PIPE_OBJECT_STORAGE), ('GET', pipe_path(PIPE_OBJECT_STORAGE))),
    Module('pipe_settings_info', 'cloud', _pipe(PIPE_OBJECT_STORAGE), ('GET', pipe_path(PIPE_OBJECT_STORAGE, '/settings'))),
    Module('rpe_info', 'cloud', dict(PROD, reverse_private_endpoint_id=RPE),
           ('GET', service_path(suffix='/pipesReversePrivateEndpoints/' + RPE))),
    Module('dashboard_info', 'observability', dict(dashboard_id=DASHBOARD_HEALTH), ('GET', '/api/v2/dashboards/' + DASHBOARD_HEALTH)),
    # Ingestion's alerts are on line tiles, which a PUT that carries their ids keeps: a rename deletes none.
    Module('dashboard', 'observability', dict(dashboard_id=DASHBOARD_INGESTION, name='Ingestion 2'),
           ('GET', '/api/v2/dashboards/' + DASHBOARD_INGESTION), ('PUT', '/api/v2/dashboards/' + DASHBOARD_INGESTION),
           ('dashboards', DASHBOARD_INGESTION), unchanged=dict(dashboard_id=DASHBOARD_INGESTION, name='Ingestion'),
           toggle=(dict(dashboard_id=DASHBOARD_INGESTION, name='bench a'), dict(dashboard_id=DASHBOARD_INGESTION, name='bench b'))),
    Module('alert_info', 'observability', dict(state='ALERT'), ('GET', '/api/v2/alerts')),
    Module('alert', 'observability', dict(alert_id=ALERTS[0], threshold=88), ('GET', '/api/v2/alerts/' + ALERTS[0]),
           ('PUT', '/api/v2/alerts/' + ALERTS[0]), ('alerts', ALERTS[0]), unchanged=dict(alert_id=ALERTS[0]),
           toggle=(dict(alert_id=ALERTS[0], threshold=86), dict(alert_id=ALERTS[0], threshold=87))),
    Module('chart_series', 'observability',
           dict(series=[dict(source_id=SOURCE_METRICS, agg_fn='count', where='level:error', group_by=[])], start_time='now-1h',
                end_time='now', granularity='1m'),
           ('POST', '/api/v2/charts/series')),
    # Before service_state: the reliability suite's real runs share one simulator, and the API refuses a
    # pipe update once the service is stopped.
    Module('pipe', 'cloud', _pipe(PIPE_KAFKA, name='orders-kafka-2', destination=dict(columns=[dict(name='order_id', type='UInt64')])),
           ('GET', pipe_path(PIPE_KAFKA)), ('PATCH', pipe_path(PIPE_KAFKA)), ('pipes', PIPE_KAFKA),
           unchanged=_pipe(PIPE_KAFKA, name='orders-kafka'),
           toggle=(_pipe(PIPE_KAFKA, name='bench a'), _pipe(PIPE_KAFKA, name='bench b'))),
    Module('service', 'cloud',
           dict(PROD, name='prod-analytics-2', ip_access_list=[dict(source='10.20.0.0/16', description='reliability suite')],
                private_endpoint_ids=[ATTACHABLE_ENDPOINT]),
           ('GET', service_path()), ('PATCH', service_path()), ('services', SERVICE_PROD),
           unchanged=dict(PROD, release_channel='default'), toggle=(dict(PROD, name='bench a'), dict(PROD, name='bench b'))),
    Module('service_scaling', 'cloud', dict(PROD, num_replicas=5, idle_timeout_minutes=30),
           ('GET', service_path()), ('PATCH', service_path(suffix='/scaling')), ('services', SERVICE_PROD),
           unchanged=dict(PROD, num_replicas=3), toggle=(dict(PROD, num_replicas=4), dict(PROD, num_replicas=3))),
    Module('service_state', 'cloud', dict(PROD, state='stopped'),
           ('GET', service_path()), ('PATCH', service_path(suffix='/state')), ('services', SERVICE_PROD),
           unchanged=dict(PROD, state='started'),
           toggle=(dict(PROD, state='stopped', wait=False), dict(PROD, state='started', wait=False))),
    Module('pipe_state', 'cloud', _pipe(PIPE_KAFKA, state='stopped'),
           ('GET', pipe_path(PIPE_KAFKA)), ('PATCH', pipe_path(PIPE_KAFKA, '/state')), ('pipes', PIPE_KAFKA),
           unchanged=_pipe(PIPE_KAFKA, state='started'),
           toggle=(_pipe(PIPE_KAFKA, state='stopped', wait=False), _pipe(PIPE_KAFKA, state='started', wait=False))),
    Module('pipe_settings', 'cloud', _pipe(PIPE_OBJECT_STORAGE, settings=dict(engine_max_threads=8, object_storage_concurrency=4)),
           ('GET', pipe_path(PIPE_OBJECT_STORAGE, '/settings')), ('PUT', pipe_path(PIPE_OBJECT_STORAGE, '/settings')),
           ('pipes', PIPE_OBJECT_STORAGE),
           unchanged=_pipe(PIPE_OBJECT_STORAGE, settings=dict(engine_max_threads=3)),
           toggle=(_pipe(PIPE_OBJECT_STORAGE, settings=dict(engine_max_threads=4)),
                   _pipe(PIPE_OBJECT_STORAGE, settings=dict(engine_max_threads=5)))),
]
BY_NAME = dict((module.name, module) for module in MODULES)
WRITERS = [module for module in MODULES if module.write]
