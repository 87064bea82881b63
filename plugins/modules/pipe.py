#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) engine.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pipe
short_description: Create, change and delete an ingestion pipe
version_added: 0.2.0
description:
  - Creates an ingestion pipe of a service, converges it to the options given, and deletes it. The pipe is found by
    O(pipe_id), or by O(name) within the service (one list request).
  - What can change goes in one C(PATCH) with only what differs, O(scaling) through the scaling endpoint and
    O(settings) as M(engine.cloud.pipe_settings) sends them. A field fixed at creation that differs, or an option
    that the pipe's kind does not take, fails the task before any write, naming the option.
  - The R(Pipes as code guide,ansible_collections.engine.cloud.docsite.guide_pipes_as_code) has the rules in detail
    (what is fixed, list order, table mappings, a service that does not run, lost answers) and a worked example.
author:
  - engine.cloud contributors (@engine-cloud)
options:
  state:
    description:
      - V(present) creates the pipe or converges it; V(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
  pipe_id:
    description:
      - UUID of the pipe. With it, O(name) is the pipe's desired name.
      - One of O(pipe_id) and O(name) is required.
    type: str
  name:
    description:
      - Name of the pipe, 1 to 255 characters; required to create one.
      - Without O(pipe_id), the pipe of that name; when several have it, the task fails before any write, listing
        their ids.
    type: str
  source:
    description:
      - Where the pipe reads from, exactly one of O(source.kafka), O(source.object_storage), O(source.stream),
        O(source.postgres). Required to create a pipe.
      - The API's fields in snake_case at every level.
      - On an existing pipe, the kind and the fields fixed at creation are compared, the others converge.
    type: dict
    suboptions:
      kafka:
        description:
          - A Kafka-compatible source. O(source.kafka.type), O(source.kafka.format), O(source.kafka.brokers) and
            O(source.kafka.topics) are needed to create it.
          - Changeable later, the others being fixed at creation, are O(source.kafka.authentication),
            O(source.kafka.iam_role), O(source.kafka.ca_certificate), O(source.kafka.reverse_private_endpoint_ids) and
            the credentials.
        type: dict
        suboptions:
          type:
            description: Kind of Kafka service.
            type: str
            choices: [kafka, redpanda, stream, gcmk, confluent, warpstream, azureeventhub, dokafka]
          format:
            description: Format of the messages.
            type: str
            choices: [JSONEachRow, Avro, AvroConfluent, Protobuf]
          brokers:
            description: The brokers, as the API takes them (C(host:port), comma-separated).
            type: str
          topics:
            description: The topics to read.
            type: str
          consumer_group:
            description: Consumer group; the API uses C(pipes-<id>) when not given.
            type: str
          authentication:
            description: Authentication method (which ones a C(type) supports is up to the API).
            type: str
            choices: [PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, IAM_ROLE, IAM_USER, MUTUAL_TLS]
          iam_role:
            description: IAM role ARN, with O(source.kafka.authentication=IAM_ROLE).
            type: str
          offset:
            description: Where reading starts.
            type: dict
            suboptions:
              strategy:
                description: Offset strategy.
                type: str
                choices: [from_beginning, from_latest, from_timestamp]
              timestamp:
                description: A minute-precision UTC timestamp such as C(2021-01-01T00:00), for C(from_timestamp).
                type: str
          schema_registry:
            description: The schema registry.
            type: dict
            suboptions:
              url:
                description: Schema URL (HTTPS).
                type: str
              authentication:
                description: Authentication type of the schema registry.
                type: str
                choices: [PLAIN]
              ca_certificate:
                description: PEM encoded CA certificates of the schema registry.
                type: str
              credentials:
                description:
                  - The schema registry's user and password (write-only), sent when the pipe is created only (the API's
                    update takes no schema registry), whatever O(update_credentials) says.
                type: dict
                suboptions:
                  username:
                    description: User name.
                    type: str
                  password:
                    description: Password.
                    type: str
          ca_certificate:
            description: PEM encoded CA certificates to validate the brokers' certificate.
            type: str
          reverse_private_endpoint_ids:
            description: Reverse private endpoint UUIDs for a private connection to the brokers.
            type: list
            elements: str
          exactly_once:
            description: Exactly-once delivery (only at creation).
            type: bool
          credentials:
            description:
              - Write-only credentials, by authentication method - O(source.kafka.credentials.username) and
                O(source.kafka.credentials.password) for PLAIN and SCRAM, O(source.kafka.credentials.access_key_id) and
                O(source.kafka.credentials.secret_key) for IAM_USER, O(source.kafka.credentials.certificate) and
                O(source.kafka.credentials.private_key) for MUTUAL_TLS, O(source.kafka.credentials.connection_string) for
                C(azureeventhub).
            type: dict
            suboptions:
              username:
                description: User name.
                type: str
              password:
                description: Password.
                type: str
              access_key_id:
                description: Access key id.
                type: str
              secret_key:
                description: Secret key.
                type: str
              certificate:
                description: Client certificate (PEM).
                type: str
              private_key:
                description: Client private key (PEM).
                type: str
              connection_string:
                description: Connection string.
                type: str
          validate_samples:
            description: Also check data samples, not only the connection, when the source is sent.
            type: bool
      object_storage:
        description:
          - An object storage source (S3, GCS, Azure Blob Storage and others). O(source.object_storage.type),
            O(source.object_storage.format) and O(source.object_storage.url) are needed to create it.
          - Changeable later are O(source.object_storage.authentication), O(source.object_storage.iam_role),
            O(source.object_storage.path), O(source.object_storage.object_container_name),
            O(source.object_storage.skip_initial_load), O(source.object_storage.start_after) and the credentials.
        type: dict
        suboptions:
          type:
            description: Kind of object storage.
            type: str
            choices: [s3, gcs, dospaces, azureblobstorage, cloudflarer2, ovhobjectstorage]
          format:
            description: Format of the files.
            type: str
            choices: [JSONEachRow, JSONAsObject, CSV, CSVWithNames, TabSeparated, TabSeparatedWithNames, Parquet, Avro]
          url:
            description: Path to the files, with bash-like wildcards.
            type: str
          delimiter:
            description: Delimiter used in the files.
            type: str
          compression:
            description: Compression of the files.
            type: str
            choices: [none, gzip, gz, brotli, br, xz, LZMA, zstd, auto]
          is_continuous:
            description: Keep reading new files (V(true)), or load the files once (V(false), the pipe then ends C(Completed)).
            type: bool
          queue_url:
            description: Queue URL for event-based continuous ingestion.
            type: str
          skip_initial_load:
            description: Skip the initial load, ingest only files notified by the queue.
            type: bool
          start_after:
            description: Skip the files up to and including this object key in the initial load.
            type: str
          authentication:
            description: Authentication method.
            type: str
            choices: [IAM_ROLE, IAM_USER, CONNECTION_STRING, SERVICE_ACCOUNT]
          iam_role:
            description: IAM role ARN, with IAM_ROLE.
            type: str
          connection_string:
            description: Azure Blob Storage connection string (write-only), with CONNECTION_STRING.
            type: str
          path:
            description: Path to the files within the Azure container.
            type: str
          object_container_name:
            description: Azure container name.
            type: str
          access_key:
            description: Access key (write-only), with IAM_USER.
            type: dict
            suboptions:
              access_key_id:
                description: Access key id.
                type: str
              secret_key:
                description: Secret key.
                type: str
          service_account_key:
            description: Base64 service account key (write-only), with SERVICE_ACCOUNT.
            type: str
          validate_samples:
            description: Also check data samples, not only the connection, when the source is sent.
            type: bool
      stream:
        description:
          - A data stream source. O(source.stream.format), O(source.stream.stream_name) and O(source.stream.region) are
            needed to create it.
          - Changeable later are O(source.stream.authentication), O(source.stream.iam_role) and O(source.stream.access_key).
        type: dict
        suboptions:
          format:
            description: Format of the records.
            type: str
            choices: [JSONEachRow, Avro, AvroConfluent]
          stream_name:
            description: Name of the stream.
            type: str
          region:
            description: Region of the stream.
            type: str
          use_enhanced_fan_out:
            description: Use enhanced fan-out.
            type: bool
          iterator_type:
            description: Where reading starts.
            type: str
            choices: [TRIM_HORIZON, LATEST, AT_TIMESTAMP]
          timestamp:
            description: UNIX timestamp to start from, with AT_TIMESTAMP.
            type: int
          authentication:
            description: Authentication method.
            type: str
            choices: [IAM_ROLE, IAM_USER]
          iam_role:
            description: IAM role ARN, with IAM_ROLE.
            type: str
          access_key:
            description: Access key (write-only), with IAM_USER.
            type: dict
            suboptions:
              access_key_id:
                description: Access key id.
                type: str
              secret_key:
                description: Secret key.
                type: str
          validate_samples:
            description: Also check data samples, not only the connection, when the source is sent.
            type: bool
      postgres:
        description:
          - A PostgreSQL database replicated by change data capture. O(source.postgres.host),
            O(source.postgres.port) and O(source.postgres.database) are needed to create it.
          - Changeable later are O(source.postgres.host), O(source.postgres.port), O(source.postgres.database),
            O(source.postgres.tls_host), O(source.postgres.ca_certificate), O(source.postgres.disable_tls),
            O(source.postgres.skip_cert_verification), O(source.postgres.settings.sync_interval_seconds),
            O(source.postgres.settings.pull_batch_size), the credentials and the table mappings.
        type: dict
        suboptions:
          type:
            description: Kind of PostgreSQL service (the API's default is C(postgres)).
            type: str
            choices: [postgres, supabase, neon, alloydb, planetscale, rdspostgres, aurorapostgres, cloudsqlpostgres, azurepostgres,
                      crunchybridge, tigerdata]
          host:
            description: Host name or address of the server.
            type: str
          port:
            description: Port of the server, 1 to 65535.
            type: int
          database:
            description: Database to replicate from.
            type: str
          authentication:
            description: Authentication method (fixed at creation).
            type: str
            choices: [basic, IAM_ROLE]
          iam_role:
            description: IAM role ARN, with IAM_ROLE.
            type: str
          tls_host:
            description: TLS host name.
            type: str
          ca_certificate:
            description: PEM encoded CA certificate of the server.
            type: str
          disable_tls:
            description: Disable TLS.
            type: bool
          skip_cert_verification:
            description: Skip the verification of the server's certificate.
            type: bool
          settings:
            description: Replication settings; only O(source.postgres.settings.sync_interval_seconds) and
              O(source.postgres.settings.pull_batch_size) can change later.
            type: dict
            suboptions:
              sync_interval_seconds:
                description: Seconds between syncs.
                type: int
              pull_batch_size:
                description: Rows per batch.
                type: int
              publication_name:
                description: Publication name.
                type: str
              replication_mode:
                description: Replication mode; with V(snapshot) the pipe ends C(Completed).
                type: str
                choices: [cdc, snapshot, cdc_only]
              replication_slot_name:
                description: Replication slot name (C(cdc_only)).
                type: str
              allow_nullable_columns:
                description: Keep the nullability of the columns.
                type: bool
              initial_load_parallelism:
                description: Parallel workers per table in the initial snapshot.
                type: int
              snapshot_num_rows_per_partition:
                description: Rows per partition in the snapshot.
                type: int
              snapshot_number_of_parallel_tables:
                description: Tables snapshotted in parallel.
                type: int
              enable_failover_slots:
                description: Failover support for the replication slot.
                type: bool
              delete_on_merge:
                description: Hard deletes in ReplacingMergeTree.
                type: bool
          table_mappings:
            description:
              - The tables to replicate, the whole list; a mapping is identified by its schema and table.
              - On an existing pipe, mappings not listed are removed and new ones added (a new snapshot of the table),
                while the pipe is paused for the edit.
            type: list
            elements: dict
            suboptions:
              source_schema_name:
                description: Schema of the source table.
                type: str
                required: true
              source_table:
                description: Source table.
                type: str
                required: true
              target_table:
                description: Destination table.
                type: str
              excluded_columns:
                description: Columns not replicated.
                type: list
                elements: str
              use_custom_sorting_key:
                description: Use O(source.postgres.table_mappings[].sorting_keys) instead of the primary key.
                type: bool
              sorting_keys:
                description: Sorting key columns, in order.
                type: list
                elements: str
              table_engine:
                description: Table engine of the destination table.
                type: str
                choices: [MergeTree, ReplacingMergeTree, 'Null']
              partition_key:
                description: Indexed column used to partition the snapshot.
                type: str
              partition_by_expr:
                description: PARTITION BY expression of the destination table.
                type: str
          credentials:
            description: User and password (write-only, see O(update_credentials)).
            type: dict
            suboptions:
              username:
                description: User name.
                type: str
              password:
                description: Password.
                type: str
          validate_samples:
            description: Accepted for symmetry; it has no effect on a postgres pipe.
            type: bool
  destination:
    description:
      - Where the pipe writes. O(destination.database) is needed to create a pipe, and, except for a postgres pipe,
        O(destination.table), O(destination.managed_table) and O(destination.columns).
      - Only O(destination.columns) can change later; O(destination.roles) is sent at creation only (no read shows it).
    type: dict
    suboptions:
      database:
        description: Destination database.
        type: str
      table:
        description: Destination table (not for a postgres pipe, whose tables are in its table mappings).
        type: str
      managed_table:
        description: Whether the pipe creates and manages the table.
        type: bool
      columns:
        description: Columns of the destination table (compared as a set).
        type: list
        elements: dict
        suboptions:
          name:
            description: Column name.
            type: str
            required: true
          type:
            description: Column type.
            type: str
            required: true
      roles:
        description: Roles granted access to the table, sent at creation only.
        type: list
        elements: str
      table_definition:
        description: Definition of a managed table (not for a postgres pipe).
        type: dict
        suboptions:
          engine:
            description: Table engine.
            type: dict
            suboptions:
              type:
                description: Engine type.
                type: str
                choices: [MergeTree, ReplacingMergeTree, SummingMergeTree, 'Null']
              version_column_id:
                description: Version column of a ReplacingMergeTree.
                type: str
              column_ids:
                description: Columns to sum in a SummingMergeTree.
                type: list
                elements: str
          sorting_key:
            description: Sorting key columns.
            type: list
            elements: str
          partition_by:
            description: Partition key expression.
            type: str
          primary_key:
            description: Primary key expression.
            type: str
  field_mappings:
    description:
      - Source fields to destination columns (compared as a set); not for a postgres pipe.
    type: list
    elements: dict
    suboptions:
      source_field:
        description: Source field.
        type: str
        required: true
      destination_field:
        description: Destination column.
        type: str
        required: true
  scaling:
    description:
      - Scaling of a kafka, stream or object storage pipe (not postgres), set and converged through the scaling endpoint,
        also right after a create. At least one of the keys.
    type: dict
    suboptions:
      replicas:
        description: Replicas, 1 to 40.
        type: int
      replica_cpu_millicores:
        description: CPU per replica in millicores, 125 to 2000.
        type: int
      replica_memory_gb:
        description: Memory per replica in GB, 0.5 to 8.
        type: float
  settings:
    description:
      - Tuning settings by their names (see M(engine.cloud.pipe_settings), whose rules apply - ranges, and V(null)
        for the default). Sent with the create, then converged as M(engine.cloud.pipe_settings) does.
    type: dict
  update_credentials:
    description:
      - V(on_create) sends the credentials only when the pipe is created. V(always) sends them on every run in the
        C(PATCH), which then reports a change (no read shows whether the pipe holds them).
    type: str
    choices: [on_create, always]
    default: on_create
  wait:
    description:
      - After a create, wait until the pipe is C(Running) or C(Completed); after a delete, until reads answer 404.
    type: bool
    default: true
  wait_timeout:
    description:
      - Seconds, at least 1, for each wait of the task.
    type: int
    default: 600
extends_documentation_fragment:
  - engine.cloud.cloud
  - engine.cloud.cloud.SERVICE_ID
  - engine.cloud.observability.UNUSED
  - engine.cloud.attributes
  - engine.cloud.attributes.CLOUD_GROUP
attributes:
  check_mode:
    support: full
    details:
      - Reports what would be created, changed or deleted, with the predicted pipe, and sends no write.
      - When a write would be sent, the service is read once, and check mode ends as the real run would in its state
        (the real run's refusal is the same failure; a create or an update on a stopped, stopping, failed or degraded service
        fails), or warns of what the real run would do (wake an idle service, wait for one that is C(awaking),
        C(starting) or C(provisioning)), or that the API may refuse a call it does not document.
  diff_mode:
    support: full
    details:
      - A create shows the pipe to be created, a change the fields that differ (credentials masked), a delete the pipe.
  idempotent:
    support: partial
    details:
      - Idempotent, except with O(update_credentials=always), which sends the credentials every time.
notes:
  - The credentials (O(source.kafka.credentials), O(source.object_storage.access_key),
    O(source.object_storage.connection_string), O(source.object_storage.service_account_key),
    O(source.stream.access_key), O(source.postgres.credentials), the schema registry's credentials) are write-only,
    so they are not compared; they never appear in a result, a diff, a warning or an error message.
  - A pipe call refused because the service is C(idle) wakes it once and is sent again, with a warning; one that is
    starting is waited for; a stopped service is never started (the task fails).
  - The destination table (for a postgres pipe, its tables) is kept when the pipe is deleted.
  - A create whose answer is lost is never sent again; the pipe is looked for by name after 1, 2, 4 and 8 seconds (or
    for O(wait_timeout) when shorter), and when none shows the task fails, saying the create may or may not have happened.
    A delete whose answer is lost is confirmed by a read first; with O(wait=true) the task ends once reads answer 404.
seealso:
  - module: engine.cloud.pipe_info
  - module: engine.cloud.pipe_state
  - module: engine.cloud.pipe_settings
'''

EXAMPLES = r'''
- name: A kafka pipe, created on the first run, unchanged on the next
  engine.cloud.pipe:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    name: payments-kafka
    source:
      kafka:
        type: confluent
        format: JSONEachRow
        brokers: pkc-4r297.eu-central-1.aws.confluent.cloud:9092
        topics: payments.v1
        authentication: PLAIN
        credentials:
          username: payments-reader
          password: "{{ vault_payments_kafka_password | default('example-password') }}"
    destination:
      database: analytics
      table: payments
      managed_table: true
      columns:
        - {name: payment_id, type: UInt64}
        - {name: amount, type: "Decimal(18, 2)"}
    field_mappings:
      - {source_field: id, destination_field: payment_id}
      - {source_field: amount, destination_field: amount}
    scaling:
      replicas: 2
    settings:
      streaming_max_insert_wait_ms: 2000

- name: Add a table to a postgres pipe (paused for the edit, resumed by the API)
  engine.cloud.pipe:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    pipe_id: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c64
    source:
      postgres:
        table_mappings:
          - {source_schema_name: public, source_table: users, target_table: public_users}
          - {source_schema_name: public, source_table: accounts, target_table: public_accounts}
          - {source_schema_name: billing, source_table: invoices, target_table: billing_invoices}
          - {source_schema_name: public, source_table: orders, target_table: public_orders}

- name: Delete the kafka pipe (its destination table is kept)
  engine.cloud.pipe:
    service_id: 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e51
    name: payments-kafka
    state: absent
'''

RETURN = r'''
pipe:
  description:
    - The pipe after the task, with secret-bearing values masked; write-only credentials are never in it.
    - In check mode, the pipe as it would be (a pipe to be created has no C(id) yet).
    - After a delete, the pipe as last read before it was gone; V({}) when there was nothing to delete.
  returned: success
  type: dict
  contains:
    id:
      description: UUID of the pipe.
      type: str
      sample: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c61
    name:
      description: Name of the pipe.
      type: str
      sample: payments-kafka
    state:
      description: State of the pipe, for example C(Provisioning), C(Running), C(Completed), C(Paused).
      type: str
      sample: Running
    source:
      description: The pipe's source; the key that holds an object (C(kafka), C(objectStorage), C(stream), C(postgres)) is its kind.
      type: dict
    destination:
      description: The destination database, table, columns and table definition.
      type: dict
    fieldMappings:
      description: Source fields to destination columns.
      type: list
      elements: dict
    scaling:
      description: Replicas, CPU and memory per replica.
      type: dict
    settings:
      description: The pipe's tuning settings.
      type: dict
'''

from ansible_collections.engine.cloud.plugins.module_utils import pipe
from ansible_collections.engine.cloud.plugins.module_utils.cloud import CloudModule


def main():
    pipe.run(CloudModule(pipe.SPEC, **pipe.OPTIONS))


if __name__ == '__main__':
    main()
