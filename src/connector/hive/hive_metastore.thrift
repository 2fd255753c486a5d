// SPDX-License-Identifier: Apache-2.0
// The part of the Hive Metastore's Thrift interface that Cairn's `hive` catalogs call
// (docs/hive.md). Field ids, types and method names are the metastore's wire format; fields and
// methods Cairn does not use are left out (a reader skips fields it does not declare). Every
// field is optional here so that Cairn sends only what it sets and accepts whatever a metastore
// of any version leaves out.

namespace cpp cairn.hms

struct FieldSchema {
  1: optional string name,
  2: optional string type,
  3: optional string comment
}

struct SerDeInfo {
  1: optional string name,
  2: optional string serializationLib,
  3: optional map<string, string> parameters
}

// `order`: 1 ascending, 0 descending.
struct Order {
  1: optional string col,
  2: optional i32 order
}

struct StorageDescriptor {
  1: optional list<FieldSchema> cols,
  2: optional string location,
  3: optional string inputFormat,
  4: optional string outputFormat,
  5: optional bool compressed,
  6: optional i32 numBuckets,
  7: optional SerDeInfo serdeInfo,
  8: optional list<string> bucketCols,
  9: optional list<Order> sortCols,
  10: optional map<string, string> parameters,
  12: optional bool storedAsSubDirectories
}

// PrincipalType: 1 USER, 2 ROLE, 3 GROUP.
struct Database {
  1: optional string name,
  2: optional string description,
  3: optional string locationUri,
  4: optional map<string, string> parameters,
  6: optional string ownerName,
  7: optional i32 ownerType,
  8: optional string catalogName
}

struct Table {
  1: optional string tableName,
  2: optional string dbName,
  3: optional string owner,
  4: optional i32 createTime,
  5: optional i32 lastAccessTime,
  6: optional i32 retention,
  7: optional StorageDescriptor sd,
  8: optional list<FieldSchema> partitionKeys,
  9: optional map<string, string> parameters,
  10: optional string viewOriginalText,
  11: optional string viewExpandedText,
  12: optional string tableType,
  14: optional bool temporary,
  17: optional string catName,
  18: optional i32 ownerType
}

struct Partition {
  1: optional list<string> values,
  2: optional string dbName,
  3: optional string tableName,
  4: optional i32 createTime,
  5: optional i32 lastAccessTime,
  6: optional StorageDescriptor sd,
  7: optional map<string, string> parameters,
  9: optional string catName
}

struct EnvironmentContext {
  1: optional map<string, string> properties
}

struct GetTableRequest {
  1: optional string dbName,
  2: optional string tblName,
  4: optional string catName
}

struct GetTableResult {
  1: optional Table table
}

struct GetTablesRequest {
  1: optional string dbName,
  2: optional list<string> tblNames,
  4: optional string catName
}

struct GetTablesResult {
  1: optional list<Table> tables
}

exception MetaException { 1: optional string message }
exception NoSuchObjectException { 1: optional string message }
exception AlreadyExistsException { 1: optional string message }
exception InvalidObjectException { 1: optional string message }
exception InvalidOperationException { 1: optional string message }
exception UnknownDBException { 1: optional string message }

service ThriftHiveMetastore {
  list<string> get_all_databases() throws (1: MetaException o1)
  Database get_database(1: string name)
      throws (1: NoSuchObjectException o1, 2: MetaException o2)
  void create_database(1: Database database)
      throws (1: AlreadyExistsException o1, 2: InvalidObjectException o2, 3: MetaException o3)
  void drop_database(1: string name, 2: bool deleteData, 3: bool cascade)
      throws (1: NoSuchObjectException o1, 2: InvalidOperationException o2, 3: MetaException o3)
  void alter_database(1: string dbname, 2: Database db)
      throws (1: MetaException o1, 2: NoSuchObjectException o2)

  list<string> get_all_tables(1: string db_name) throws (1: MetaException o1)
  GetTableResult get_table_req(1: GetTableRequest req)
      throws (1: MetaException o1, 2: NoSuchObjectException o2)
  GetTablesResult get_table_objects_by_name_req(1: GetTablesRequest req)
      throws (1: MetaException o1, 2: InvalidOperationException o2, 3: UnknownDBException o3)
  void create_table(1: Table tbl)
      throws (1: AlreadyExistsException o1, 2: InvalidObjectException o2, 3: MetaException o3,
              4: NoSuchObjectException o4)
  void drop_table(1: string dbname, 2: string name, 3: bool deleteData)
      throws (1: NoSuchObjectException o1, 2: MetaException o3)
  void alter_table_with_environment_context(1: string dbname, 2: string tbl_name,
                                            3: Table new_tbl,
                                            4: EnvironmentContext environment_context)
      throws (1: InvalidOperationException o1, 2: MetaException o2)

  list<string> get_partition_names(1: string db_name, 2: string tbl_name, 3: i16 max_parts)
      throws (1: NoSuchObjectException o1, 2: MetaException o2)
  list<Partition> get_partitions(1: string db_name, 2: string tbl_name, 3: i16 max_parts)
      throws (1: NoSuchObjectException o1, 2: MetaException o2)
  Partition get_partition_by_name(1: string db_name, 2: string tbl_name, 3: string part_name)
      throws (1: MetaException o1, 2: NoSuchObjectException o2)
  Partition add_partition(1: Partition new_part)
      throws (1: InvalidObjectException o1, 2: AlreadyExistsException o2, 3: MetaException o3)
  bool drop_partition_by_name(1: string db_name, 2: string tbl_name, 3: string part_name,
                              4: bool deleteData)
      throws (1: NoSuchObjectException o1, 2: MetaException o2)
}
