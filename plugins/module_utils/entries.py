# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The module object one organization entry's own module code runs on (service.run, pipe.run, dashboard.run,
alert.run): its reads come from the lists the task read (organization.OrganizationModule.cached), its exit and failure
return to the planner (Done, Failed), and its writes go through the task's clients and update those lists."""

from ansible_collections.engine.cloud.plugins.module_utils import cloud, observability, reads
from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError

TEAM_LISTS = (observability.PREFIX + '/sources', observability.PREFIX + '/webhooks')


class Done(Exception):
    def __init__(self, result):
        super(Done, self).__init__('done')
        self.result = result


class Failed(Exception):
    def __init__(self, msg, result):
        super(Failed, self).__init__(msg)
        self.result = result


class Entry:
    """The module object one entry's own module code runs on (mixed before CloudModule or ObservabilityModule)."""

    def setup(self, org, kind, params, check_mode, where, argument_spec):
        self.org, self.kind, self.params, self.check_mode, self.where = org, kind, params, check_mode, where
        self._diff, self.failure_amends, self.no_log_values = True, [], org.no_log_values
        self.client, self.shared, self.argument_spec = org.client(kind), reads.Alone(), argument_spec
        self.alerts_read, self.whole_plan = [], True
        return self

    def exit_json(self, **result):
        raise Done(result)

    def exit(self, changed=False, diff=None, **result):  # the planner masks what it returns
        raise Done(dict(result, changed=changed, diff=diff))

    def fail_json(self, msg, **result):
        for amend in list(self.failure_amends):
            msg, result = amend(msg, result)
        raise Failed('%s: %s' % (self.where, msg), result)

    def warn(self, warning):
        self.org.warn('%s: %s' % (self.where, warning))

    def planned(self, request):
        self.org.rendered.append(dict(request, entry=self.where))

    def request(self, method, path, params=None, body=None, once=False):
        if method == 'GET':
            kept = self.org.cached(path, params)
            if kept is not None:
                return kept
            if self.org.offline:
                raise ApiError('not found (rendered: nothing is read)', status=404, method=method, path=path)
            if path in TEAM_LISTS or path in self.org.known:  # read once more for the entries after this one
                def read(how, target, query):
                    return super(Entry, self).request(how, target, params=query)
                self.org.lists[path] = (observability.list_all(read, path[len(observability.PREFIX):]) if path.endswith('/alerts')
                                        else read(method, path, None).get('data' if path.startswith(observability.PREFIX) else 'result') or [])
                return self.org.cached(path, params)
        elif not self.check_mode:
            try:
                answer = super(Entry, self).request(method, path, params=params, body=body, once=once)
            except ApiError:
                self.org.wrote(method, path, None)  # the write may have been applied: its list is read again
                raise
            self.org.wrote(method, path, answer)
            return answer
        return super(Entry, self).request(method, path, params=params, body=body, once=once)


class CloudEntry(Entry, cloud.CloudModule):
    pass


class ObservabilityEntry(Entry, observability.ObservabilityModule):
    pass


def entry_module(api):
    """A bare module object of api's kind, for setup()."""
    kind = CloudEntry if api is cloud.API else ObservabilityEntry
    return kind.__new__(kind)
