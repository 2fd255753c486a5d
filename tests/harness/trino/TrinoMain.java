// SPDX-License-Identifier: Apache-2.0
// Starts a Trino server from trino-main's jars: the tests' Trino. tests/harness/trino_server.py
// runs this file with `java TrinoMain.java`, so nothing is built; Trino's own launcher is not
// published on Maven Central.
public final class TrinoMain {
  public static void main(String[] args) {
    new io.trino.server.Server().start(System.getProperty("cairn.trino.version", "unknown"));
  }
}
