"""Names for the ids and credentials of the simulator's fixture (fixtures.json holds the values).

Every Python suite imports these names instead of copying the values: the simulator's own tests,
the unit tests, the reliability suite, the end-to-end tests, the bench and the simulator launcher
(which hands the credentials to scripts/simulator.sh). The integration targets get the same values
as ``sim_*`` facts and ``engine_*`` variables; tests/simulator/test_fixture_ids.py checks them.
"""

import json
import os

FIXTURES_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures.json')

with open(FIXTURES_PATH, encoding='utf-8') as _handle:
    _FIXTURES = json.load(_handle)


def _by_name_in(fixtures, kind, name):
    return next(item['id'] for item in fixtures[kind] if item['name'] == name)


def _by_name(kind, name):
    return _by_name_in(_FIXTURES, kind, name)


ORGANIZATION = _FIXTURES['organization']['id']
KEY_ID = _FIXTURES['apiKeys'][0]['id']
KEY_SECRET = _FIXTURES['apiKeys'][0]['secret']
TOKEN = _FIXTURES['tokens'][0]

SERVICE_PROD = _by_name('services', 'prod-analytics')        # production, paid, primary, running
SERVICE_DEV = _by_name('services', 'dev-sandbox')            # development, not paid, stopped
SERVICE_IDLE = _by_name('services', 'reporting replica')     # production, not primary, idle
SERVICE_INGEST_STAGING = _by_name('services', 'ingest-staging')  # development, gcp, running, tags team/env
SERVICE_INGEST_EU = _by_name('services', 'ingest-eu')        # production, azure, running, a tag without value
SERVICE_HORIZONTAL = _by_name('services', 'events-horizontal')  # production, paid, horizontal autoscaling, running

PIPE_KAFKA = _by_name('pipes', 'orders-kafka')               # on prod, Running
PIPE_OBJECT_STORAGE = _by_name('pipes', 'events-objectstorage')  # on prod, Running, has a connection string
PIPE_STREAM = _by_name('pipes', 'clicks-stream')             # on prod, Stopped
PIPE_POSTGRES = _by_name('pipes', 'users-postgres')          # on prod, Running
PIPE_DEV = _by_name('pipes', 'sandbox-events')               # on dev, Stopped

RPE = _FIXTURES['reversePrivateEndpoints'][0]['id']          # on prod

DASHBOARD_HEALTH = _by_name('dashboards', 'Service health')
DASHBOARD_INGESTION = _by_name('dashboards', 'Ingestion')
DASHBOARD_GALLERY = _by_name('dashboards', 'Tile gallery')  # a tile of every display type, both forms, a PromQL tile
DASHBOARD_STAGING_A, DASHBOARD_STAGING_B = (item['id'] for item in _FIXTURES['dashboards']
                                            if item['name'] == 'Staging overview')  # two dashboards of one name
SOURCE_METRICS = _by_name('sources', 'Metrics')
SOURCE_LOGS = _by_name('sources', 'Logs')
ALERTS = tuple(alert['id'] for alert in _FIXTURES['alerts'])  # oldest first
ALERT_BETWEEN = _by_name('alerts', 'Cache hit ratio out of band')  # message, note, schedule, thresholdMax, two channels
ALERT_SAVED_SEARCH = _by_name('alerts', 'Production errors')      # on the saved search, groupBy service
ALERT_PROMQL = _by_name('alerts', 'PromQL CPU high')              # on the gallery's PromQL tile (hidden from reads)
ALERT_TABLE = _by_name('alerts', 'Top hosts busy')                # on a table tile: the next update of its dashboard deletes it
ALERT_LEGACY = _by_name('alerts', 'Legacy slow searches')         # on the saved search, no usable channel ({type: null})
ALERT_STAGING_A, ALERT_STAGING_B = (alert['id'] for alert in _FIXTURES['alerts']
                                    if alert['name'] == 'Staging errors')  # two alerts of one name, one per staging dashboard
TEAM = _FIXTURES['team']['id']
WEBHOOK_PAGER = _by_name('webhooks', 'sre-pager')
WEBHOOK_CHAT = _by_name('webhooks', 'ops-chat')
WEBHOOK_INGEST = _by_name('webhooks', 'ingest-team')
SAVED_SEARCH = _by_name('savedSearches', 'Errors in production')

# The second organization, empty, with a team of its own: what a whole organization is promoted into. Its team has
# sources, webhooks and a saved search of the same names as the first's, with ids of its own.
_SECOND = _FIXTURES['secondOrganization']
SECOND_ORGANIZATION = _SECOND['organization']['id']
SECOND_KEY_ID = _SECOND['apiKeys'][0]['id']
SECOND_KEY_SECRET = _SECOND['apiKeys'][0]['secret']
SECOND_TOKEN = _SECOND['tokens'][0]
SECOND_TEAM = _SECOND['team']['id']
SECOND_SOURCE_METRICS, SECOND_SOURCE_LOGS = (_by_name_in(_SECOND, 'sources', name) for name in ('Metrics', 'Logs'))
SECOND_WEBHOOK_PAGER, SECOND_WEBHOOK_CHAT, SECOND_WEBHOOK_INGEST = (
    _by_name_in(_SECOND, 'webhooks', name) for name in ('sre-pager', 'ops-chat', 'ingest-team'))
SECOND_SAVED_SEARCH = _by_name_in(_SECOND, 'savedSearches', 'Errors in production')

# The secret no result, log line or error of the collection may ever contain.
CONNECTION_STRING = next(pipe['source']['objectStorage']['connectionString'] for pipe in _FIXTURES['pipes']
                         if pipe['id'] == PIPE_OBJECT_STORAGE)


def gallery_tile(name):
    """The id of the gallery dashboard's tile of that name."""
    return next(tile['id'] for dashboard in _FIXTURES['dashboards'] if dashboard['id'] == DASHBOARD_GALLERY
                for tile in dashboard['tiles'] if tile['name'] == name)


def service_path(service_id=SERVICE_PROD, suffix=''):
    """The management API's path of a service (plus a suffix such as '/state')."""
    return '/v1/organizations/%s/services/%s%s' % (ORGANIZATION, service_id, suffix)


def pipe_path(pipe_id, suffix='', service_id=SERVICE_PROD):
    """The management API's path of a pipe (plus a suffix such as '/settings')."""
    return service_path(service_id, '/pipes/%s%s' % (pipe_id, suffix))


def cloud_connection(url, second=False):
    """The management API's connection options for a simulator at url (second: of the second organization)."""
    if second:
        return dict(api_url=url, api_key_id=SECOND_KEY_ID, api_key_secret=SECOND_KEY_SECRET, organization_id=SECOND_ORGANIZATION)
    return dict(api_url=url, api_key_id=KEY_ID, api_key_secret=KEY_SECRET, organization_id=ORGANIZATION)


def observability_connection(url, second=False):
    """The observability API's connection options for a simulator at url (second: of the second organization's team)."""
    return dict(observability_url=url, api_token=SECOND_TOKEN if second else TOKEN)


# The ids POST /_admin/seed gives (tests/simulator/seed.py), numbered from 1: deterministic, whatever was seeded before.
def seeded_service(number):
    return '5eed0000-0000-4000-8000-%012d' % number


def seeded_pipe(service_number, number):
    return '5eed0001-0000-4000-8000-%06d%06d' % (service_number, number)


def seeded_endpoint(service_number):
    """The reverse private endpoint of a seeded service that has a kafka pipe."""
    return '5eed0002-0000-4000-8000-%012d' % service_number


def seeded_dashboard(number):
    return '5eedd0%018d' % number


def seeded_tile(dashboard_number, number):
    return '5eed70%012d%06d' % (dashboard_number, number)


def seeded_alert(number):
    return '5eeda1%018d' % number
