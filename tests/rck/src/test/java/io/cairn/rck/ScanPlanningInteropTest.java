/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * Server-side scan planning checked with Iceberg's Java client (1.11): the same table planned by
 * the client itself (scan-planning-mode=client) and by Cairn (server, RESTTableScan) gives the
 * same data files with the same delete files, for partition, metrics and mixed filters. The
 * table's files are metadata only (nothing reads them): data files with column bounds across
 * identity, day and bucket partitions, then position and equality delete files, then more data.
 */
package io.cairn.rck;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ScanPlanningInteropTest {
  private static final Schema SCHEMA =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "category", Types.StringType.get()),
          optional(3, "ts", Types.TimestampType.withZone()));
  private static final PartitionSpec SPEC =
      PartitionSpec.builderFor(SCHEMA).identity("category").day("ts").bucket("id", 4).build();
  private static final long DAY_MICROS = 86_400_000_000L;
  private static final int FIRST_DAY = 19723; // 2024-01-01

  private static RESTCatalog client;
  private static RESTCatalog server;
  private static TableIdentifier ident;

  private static RESTCatalog catalog(boolean serverPlanning) {
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, System.getProperty("uri"));
    props.put(CatalogProperties.WAREHOUSE_LOCATION, System.getProperty("warehouse"));
    props.put("scan-planning-mode", serverPlanning ? "server" : "client");
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize(serverPlanning ? "server" : "client", props);
    return catalog;
  }

  private static PartitionData partition(int i) {
    PartitionData p = new PartitionData(SPEC.partitionType());
    // No null partition value: the Java client's own planner fails on one under an IN filter
    // (its Evaluator hands the null to a CharSequenceSet); tests/iceberg covers null partitions.
    p.set(0, String.valueOf("abcd".charAt(i % 4)));
    p.set(1, FIRST_DAY + (i % 5));
    p.set(2, i % 4);
    return p;
  }

  private static DataFile dataFile(Table table, int i) {
    long lo = i * 100L;
    long ts = (FIRST_DAY + (i % 5)) * DAY_MICROS + 3_600_000_000L;
    Metrics metrics =
        new Metrics(
            100L,
            null,
            Map.of(1, 100L, 2, 100L, 3, 100L),
            Map.of(1, 0L, 2, 0L, 3, 0L),
            null,
            Map.of(
                1, Conversions.toByteBuffer(Types.LongType.get(), lo),
                3, Conversions.toByteBuffer(Types.TimestampType.withZone(), ts)),
            Map.of(
                1, Conversions.toByteBuffer(Types.LongType.get(), lo + 99),
                3, Conversions.toByteBuffer(Types.TimestampType.withZone(), ts + 600_000_000L)));
    return DataFiles.builder(SPEC)
        .withPath(table.location() + "/data/f" + i + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(4096)
        .withPartition(partition(i))
        .withMetrics(metrics)
        .build();
  }

  private static DeleteFile positionDeletes(Table table, int i, String referenced) {
    FileMetadata.Builder b =
        FileMetadata.deleteFileBuilder(SPEC)
            .ofPositionDeletes()
            .withPath(table.location() + "/data/pos-" + i + ".parquet")
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(512)
            .withRecordCount(3)
            .withPartition(partition(i));
    if (referenced != null) {
      b.withReferencedDataFile(referenced);
    }
    return b.build();
  }

  private static DeleteFile equalityDeletes(Table table, int i) {
    return FileMetadata.deleteFileBuilder(SPEC)
        .ofEqualityDeletes(1)
        .withPath(table.location() + "/data/eq-" + i + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(512)
        .withRecordCount(2)
        .withPartition(partition(i))
        .build();
  }

  @BeforeAll
  static void makeTable() {
    client = catalog(false);
    server = catalog(true);
    Namespace ns = Namespace.of("cairn_scan_planning_" + System.nanoTime());
    client.createNamespace(ns);
    ident = TableIdentifier.of(ns, "events");
    Table table = client.createTable(ident, SCHEMA, SPEC, Map.of("format-version", "2"));
    var append = table.newAppend();
    for (int i = 0; i < 40; i++) {
      append.appendFile(dataFile(table, i));
    }
    append.commit();
    table
        .newRowDelta()
        .addDeletes(positionDeletes(table, 0, null))
        .addDeletes(positionDeletes(table, 5, table.location() + "/data/f5.parquet"))
        .addDeletes(equalityDeletes(table, 2))
        .commit();
    var later = table.newAppend(); // newer than the deletes: none applies to them
    for (int i = 40; i < 48; i++) {
      later.appendFile(dataFile(table, i));
    }
    later.commit();
  }

  @AfterAll
  static void close() throws IOException {
    client.close();
    server.close();
  }

  // Each planned data file with the delete files that apply to it.
  private static Map<String, TreeSet<String>> plan(TableScan scan) throws IOException {
    Map<String, TreeSet<String>> out = new TreeMap<>();
    try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
      for (FileScanTask task : tasks) {
        TreeSet<String> deletes = new TreeSet<>();
        task.deletes().forEach(d -> deletes.add(d.location()));
        out.put(task.file().location(), deletes);
      }
    }
    return out;
  }

  @Test
  void theServerPlansWhatTheClientPlans() throws IOException {
    Table mine = server.loadTable(ident);
    Table theirs = client.loadTable(ident);
    assertThat(mine.newScan().getClass().getSimpleName()).isEqualTo("RESTTableScan");
    assertThat(theirs.newScan().getClass().getSimpleName()).isNotEqualTo("RESTTableScan");
    List<Expression> filters =
        List.of(
            Expressions.alwaysTrue(),
            Expressions.equal("category", "a"),
            Expressions.notEqual("category", "a"),
            Expressions.in("category", "b", "c"),
            Expressions.isNull("category"),
            Expressions.notNull("category"),
            Expressions.startsWith("category", "d"),
            Expressions.greaterThan("id", 1500L),
            Expressions.lessThan("id", 250L),
            Expressions.equal("id", 4242L),
            Expressions.greaterThanOrEqual("ts", "2024-01-04T00:00:00+00:00"),
            Expressions.lessThan("ts", "2024-01-02T00:00:00+00:00"),
            Expressions.and(Expressions.equal("category", "b"), Expressions.lessThan("id", 2000L)),
            Expressions.or(Expressions.equal("id", 7L), Expressions.equal("id", 4601L)),
            Expressions.not(Expressions.equal("category", "c")));
    for (Expression filter : filters) {
      Map<String, TreeSet<String>> expected = plan(theirs.newScan().filter(filter));
      Map<String, TreeSet<String>> got = plan(mine.newScan().filter(filter));
      assertThat(got).as("plan of %s", filter).isEqualTo(expected);
    }
    Map<String, TreeSet<String>> all = plan(mine.newScan());
    assertThat(all).hasSize(48);
    assertThat(all.values().stream().filter(d -> !d.isEmpty()).count()).isGreaterThan(0);
    // Time travel: the first snapshot has no delete files.
    long first = theirs.history().get(0).snapshotId();
    assertThat(plan(mine.newScan().useSnapshot(first)))
        .isEqualTo(plan(theirs.newScan().useSnapshot(first)));
  }
}
