package dev.tollgate.bench.suite;

import dev.tollgate.bench.machine.MachineInfo;
import dev.tollgate.bench.scenario.AuthFailureFlood;
import dev.tollgate.bench.scenario.ClusterAccuracy;
import dev.tollgate.bench.scenario.CostCurve;
import dev.tollgate.bench.scenario.DirectoryFootprint;
import dev.tollgate.bench.scenario.HotKeyCost;
import dev.tollgate.bench.scenario.LatencyRun;
import dev.tollgate.bench.scenario.MicroResult;
import dev.tollgate.bench.scenario.ParallelBurst;
import dev.tollgate.bench.scenario.RedisMemoryPerBucket;
import dev.tollgate.bench.scenario.Saturation;
import dev.tollgate.bench.scenario.WarmUp;
import java.time.Duration;
import java.util.List;

/**
 * Everything one run of the suite measured, for the report.
 *
 * @param otherWorkCoresBefore cores used by other work just before the load runs
 * @param targets      the load targets in report order: direct to the upstream, then the gateways,
 *                     the no-limiter baseline first
 * @param saturationTargets the saturation scenario's targets in report order: {@code targets}, then
 *                     the gateways measured at saturation only (Tollgate with three limits)
 * @param rates        the latency runs' rates (shares of the no-limiter gateway's measured capacity)
 * @param headlineRate the rate the latency target is judged at (half that capacity)
 * @param directories  heap retained by a full directory snapshot, for each directory measured
 * @param flood        the bogus-key flood's runs, with and without the failed-authentication limit
 */
public record SuiteResults(MachineInfo machine, double otherWorkCoresBefore, String loadAverageAtEnd, Duration elapsed,
                           SuitePlan plan, List<String> targets, List<String> saturationTargets, List<Double> rates, double headlineRate,
                           List<MicroResult> micro, List<LatencyRun> latency, List<WarmUp.Result> warmUps,
                           List<Saturation.Run> saturation,
                           List<ClusterAccuracy.Result> accuracy, List<RedisMemoryPerBucket.Result> memory,
                           List<HotKeyCost.Result> hotKey, List<ParallelBurst.Result> burst,
                           List<CostCurve.Point> costCurve, List<DirectoryFootprint.Result> directories,
                           List<AuthFailureFlood.Run> flood) {
}
