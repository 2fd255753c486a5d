"""A Spark compaction job, run by Cairn's local executor from a Spark job template
(tests/engines/test_spark.py::test_a_spark_compaction_job_through_the_jobs_api): rewrites a
table's data files with Iceberg's rewrite_data_files procedure through Cairn's REST catalog,
as a user's job would, with the principal and vended credentials it is given.
"""

import argparse

from pyspark.sql import SparkSession

parser = argparse.ArgumentParser()
for name in ("uri", "warehouse", "user", "table", "s3-endpoint"):
    parser.add_argument(f"--{name}", required=True)
args = parser.parse_args()

c = "cairn"
builder = SparkSession.builder.appName("cairn-compaction")
for key, value in {
    "": "org.apache.iceberg.spark.SparkCatalog",
    "type": "rest",
    "uri": args.uri,
    "warehouse": args.warehouse,
    "header.X-Iceberg-Access-Delegation": "vended-credentials",
    "rest.auth.type": "basic",
    "rest.auth.basic.username": args.user,
    "rest.auth.basic.password": "x",
    "io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
    "s3.endpoint": args.s3_endpoint,
    "s3.path-style-access": "true",
    "client.region": "us-east-1",
}.items():
    builder = builder.config(f"spark.sql.catalog.{c}" + (f".{key}" if key else ""), value)
spark = builder.getOrCreate()
result = spark.sql(f"CALL {c}.system.rewrite_data_files(table => '{args.table}', "
                   "options => map('rewrite-all', 'true'))").collect()
print(f"rewritten data files: {result[0][0]}, added data files: {result[0][1]}")
spark.stop()
