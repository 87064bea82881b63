# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""What the collection's controller plugins (inventory, lookup) share with its modules: the same
option checks, the same HTTP client, the same error texts; a problem is an AnsibleError instead
of a failed task, and no secret is in its message."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping

from ansible.errors import AnsibleError
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.parameters import remove_values
from ansible.module_utils.errors import UnsupportedError

from ansible_collections.engine.cloud.plugins.module_utils.errors import ApiError


def raise_on_errors(errors, secrets=()):
    """AnsibleError with every message among errors (Nones are fine values), secrets masked."""
    messages = [error for error in errors if error]
    if messages:
        raise AnsibleError(remove_values('; '.join(messages), set(secret for secret in secrets if secret)))


def checked_options(spec, values, plugin):
    """values checked against an argument spec as a module checks its arguments (types, choices,
    suboptions, defaults, environment fallbacks, unknown names), failing with the text a module
    fails with (its first problem); plugin names the plugin, for example 'engine.cloud.x lookup'.
    values may be what Ansible hands a plugin, lazy containers included (see plain)."""
    result = ArgumentSpecValidator(spec).validate(plain(values))
    if result.error_messages:
        message = result.errors.msg
        if isinstance(result.errors[0], UnsupportedError):
            message = 'Unsupported parameters for (%s): %s' % (plugin, message)
        secrets = [result.validated_parameters.get(name) for name, option in spec.items() if option.get('no_log')]
        raise_on_errors([message], [secret for secret in secrets if isinstance(secret, str)])
    return result.validated_parameters


def plain(value):
    """value with every mapping turned into a dict and every list or tuple into a list, at every depth.
    From ansible-core 2.19 on, a plugin's arguments are lazy containers that render their items when
    they are read. A deep copy of one (ArgumentSpecValidator makes one) copies its template engine
    with it, and the copy's filter plugin loader is broken (PluginLoader.__setstate__ calls __init__
    with Jinja2Loader's arguments out of place), so a template in the copy that uses one of
    ansible-core's filters fails. The items read here are rendered by the play's own templar."""
    if isinstance(value, Mapping):
        return dict((key, plain(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def without_fallbacks(spec):
    """A module's argument spec without its environment fallbacks: a plugin has them from the env
    entries of its DOCUMENTATION, through set_options."""
    return dict((name, dict((key, value) for key, value in option.items() if key != 'fallback')) for name, option in spec.items())


def plugin_options(plugin, spec, variables, direct, name):
    """Every option of plugin (a lookup or other configurable plugin): the values given directly
    checked as a module checks its arguments (see checked_options, with spec: the plugin's options
    as an argument spec, without fallbacks, and nothing required that an environment variable or a
    variable can give), then set as Ansible sets a plugin's options (set_options), which adds the
    env and vars entries and the defaults of its DOCUMENTATION. name names the plugin in messages."""
    checked = checked_options(spec, direct, name)
    plugin.set_options(var_options=variables, direct=dict((option, checked[option]) for option in direct))
    return dict((option, plugin.get_option(option)) for option in spec)


def open_client(params, api, warn, secrets=()):
    """The HTTP client of one API (a base.Api: cloud.API or observability.API) after the checks a module
    makes before any request, paced like a module's; a bad option is an AnsibleError with secrets masked.
    warn(text) shows a warning."""
    return api.connect(params, warn, lambda *errors: raise_on_errors(errors, secrets))


def call(client, method, path, body=None, hints=None, params=None):
    """One API call; an API error is an AnsibleError with the text a module fails with, and
    hints (HTTP status -> what to check) for the statuses the client gives no hint for."""
    try:
        return client.request(method, path, params=params, body=body)
    except ApiError as error:
        error.hint = error.hint or (hints or {}).get(error.status)
        raise AnsibleError(str(error))
