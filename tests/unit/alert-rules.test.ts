// The repository's Prometheus alert rules (ops/prometheus/alerts.yml) are valid for Prometheus, and
// each alert fires on the series that should raise it and stays quiet on healthy ones
// (ops/prometheus/alerts.test.yml), by Prometheus' own promtool.
import { describe, expect, it } from "vitest";
import { ALERT_RULES, ALERT_RULE_TESTS, promtool, promtoolBinary } from "../helpers/prometheus";

describe("the alert rules", () => {
  it("pass promtool check rules", (ctx) => {
    if (!promtoolBinary) {
      console.warn("SKIPPED: promtool is not installed (Debian's prometheus package; .ci/run installs it)");
      ctx.skip("promtool is not installed (apt-get install prometheus)");
    }
    const checked = promtool(["check", "rules", ALERT_RULES]);
    expect(checked.output).toContain("SUCCESS: 7 rules found");
    expect(checked.code, checked.output).toBe(0);
  });

  it("fire when they should, by promtool test rules", (ctx) => {
    if (!promtoolBinary) {
      console.warn("SKIPPED: promtool is not installed (Debian's prometheus package; .ci/run installs it)");
      ctx.skip("promtool is not installed (apt-get install prometheus)");
    }
    const tested = promtool(["test", "rules", ALERT_RULE_TESTS]);
    expect(tested.code, tested.output).toBe(0);
    expect(tested.output).toContain("SUCCESS");
  });
});
