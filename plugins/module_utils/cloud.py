# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The cloud management API (/v1): credentials, paths, the envelope, and state waits."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.engine.cloud.plugins.module_utils import validate
from ansible_collections.engine.cloud.plugins.module_utils.base import (
    CLOUD_CONNECTION, OBSERVABILITY_CONNECTION, EngineModule, WaitError, missing_connection_errors, option_source, unused,
    wait_for_state)
from ansible_collections.engine.cloud.plugins.module_utils.pacer import ApiLimit

AUTH_HINT = 'The management API refused the API key: check api_key_id and api_key_secret (ENGINE_CLOUD_KEY_ID, ENGINE_CLOUD_KEY_SECRET)'

# The live limit of this API, per credential (reference/README.md).
RATE_LIMIT = ApiLimit(requests=10, seconds=10, env='ENGINE_CLOUD_RATE_LIMIT', credential='api_key_id')


def services_path(organization_id):
    """/v1/organizations/{organization_id}/services: the list, and the base of every service's path."""
    return '/v1/organizations/%s/services' % organization_id


def connection_errors(params, uuid_options=('organization_id',)):
    """Messages for missing connection options; when none is missing, for a bad api_url and for the
    options in uuid_options that are no UUIDs."""
    return missing_connection_errors(CLOUD_CONNECTION, params) or (
        [validate.url('api_url', params['api_url'])] + [validate.uuid(name, params[name]) for name in uuid_options])


def client_options(params):
    """The management API's part of the HTTP client: base address, Basic auth, what a 401 means and
    what to check when no connection can be made."""
    return dict(base_url=params['api_url'], auth=(params['api_key_id'], params['api_key_secret']), auth_hint=AUTH_HINT,
                url_hint='Check %s' % option_source(CLOUD_CONNECTION, 'api_url'))


def wait_options(timeout):
    """The wait and wait_timeout options of a state module, with its default timeout in seconds."""
    return dict(wait=dict(type='bool', default=True), wait_timeout=dict(type='int', default=timeout))


class CloudModule(EngineModule):
    """A module of the cloud management API, on one service.

    Every module has the service_id option (documented in the engine.cloud.cloud.SERVICE_ID fragment);
    service_id_required=False makes it optional. uuid_options are checked before anything is sent."""

    connection_spec = dict(CLOUD_CONNECTION, **unused(OBSERVABILITY_CONNECTION))
    rate_limit = RATE_LIMIT

    def __init__(self, argument_spec, uuid_options=(), service_id_required=True, **kwargs):
        self.uuid_options = ('organization_id', 'service_id') + tuple(uuid_options)
        spec = dict(service_id=dict(type='str', required=service_id_required))
        spec.update(argument_spec)
        super(CloudModule, self).__init__(spec, **kwargs)
        if 'wait_timeout' in self.params:
            self.fail_on_errors(None if self.params['wait_timeout'] >= 1
                                else 'wait_timeout must be at least 1 second, got %d' % self.params['wait_timeout'])

    def connection_errors(self):
        return connection_errors(self.params, self.uuid_options)

    def client_options(self):
        return client_options(self.params)

    def path(self, *parts):
        """/v1/organizations/{organization_id}/services/{service_id}[/part...]"""
        return '/'.join((services_path(self.params['organization_id']), self.params['service_id']) + parts)

    def get(self, *parts):
        return self.call('GET', self.path(*parts)).get('result')

    def list_services(self):
        """Every service of the organization, in one request."""
        return self.call('GET', services_path(self.params['organization_id'])).get('result')

    def send(self, method, body, *parts):
        return self.call(method, self.path(*parts), body=body).get('result')

    def command(self, command, reached, *parts):
        """PATCH a state command to <resource>/state and return the resource it answers with.

        A command, unlike a value, cannot be sent twice: when the answer to an applied command is
        lost and the client retries, the API refuses the repeat (409, or 400 "already ...").
        The resource is then read, and if reached(its state) holds, the first attempt did the work."""
        def already_done(error):
            if error.attempts > 1 and error.status in (400, 409):
                resource = self.get(*parts)
                if reached(resource.get('state')):
                    return dict(result=resource)
            return None

        return self.call('PATCH', self.path(*(parts + ('state',))), body=dict(command=command), recover=already_done).get('result')

    def settle(self, resource, read, done, failed, what, key):
        """With wait=true, poll read() until the state is in done (the first poll is resource, as just
        seen); a failure state or the timeout fails the task with the last resource. Else resource."""
        if not self.params['wait'] or resource.get('state') in done:
            return resource
        try:
            resource, dummy = wait_for_state(read, done, failed, self.params['wait_timeout'], what, current=resource)
        except WaitError as error:
            self.fail(str(error), **{key: error.resource})
        return resource
