"""The observability API's rate window as the reference states it: 100 requests per 60 s per token, one budget for
every /api/v2 route, counted on every request (with the rate_limit switch off too, and a refused request too), in fixed windows, a
plain-text 429 with Retry-After: 60 that can come before the auth check."""

from .state import RateLimiter

SERIES = {'series': [{'sourceId': '65b000000000000000000001', 'aggFn': 'count', 'where': '', 'groupBy': []}],
          'startTime': 1728730800000, 'endTime': 1728734400000, 'granularity': '5m'}


def test_every_request_counts_while_the_switch_is_off_and_the_budget_is_one_for_every_route(sim):
    routes = [('GET', '/api/v2/dashboards', None), ('GET', '/api/v2/alerts', None), ('POST', '/api/v2/charts/series', SERIES),
              ('GET', '/api/v2/nowhere', None), ('DELETE', '/api/v2/alerts/65c0000000000000000000ff', None)]
    answers = [sim.obs(*routes[index % len(routes)]) for index in range(100)]
    assert 429 not in [answer.status for answer in answers]
    assert [int(answer.headers['RateLimit-Remaining']) for answer in answers[:3]] == [99, 98, 97]
    assert answers[-1].headers['RateLimit-Remaining'] == '0'
    sim.admin('PATCH', 'config', {'rate_limit': True})  # no reset: the window counted while the switch was off
    refused = sim.obs('POST', '/api/v2/charts/series', SERIES)
    assert refused.status == 429 and refused.text == 'Too many requests, please try again later.'
    assert refused.headers['Retry-After'] == '60' and refused.headers['Content-Type'].startswith('text/plain')
    before_auth = sim.request('GET', '/api/v2/alerts', headers={'Authorization': 'Bearer ' + 'x' * 8})
    assert before_auth.status == 401  # another Authorization value: a budget of its own
    assert [entry['status'] for entry in sim.requests_log()][-2:] == [429, 401]


def test_a_refused_request_counts_in_the_window_of_its_token():
    window = RateLimiter(3, 60, count_refused=True)
    assert [window.hit('t', moment).allowed for moment in (0, 10, 20)] == [True] * 3
    refused = window.hit('t', 30)
    assert not refused.allowed and refused.remaining == 0 and refused.reset == 30
    assert window.windows['t'] == (0, 4)  # counted
    assert window.hit('u', 30).allowed is True  # another token
    assert window.hit('t', 60).allowed is True  # a new window
    management = RateLimiter(1, 10)  # the management API's: "refused requests do not count" (README)
    management.hit('k', 0)
    management.hit('k', 1)
    assert management.windows['k'] == (0, 1)
