/**
 * Names the test file, and the test in it, that a worker was running when it died.
 *
 * When a test process exits unexpectedly (a native crash in Dawn or a driver, a kill),
 * vitest says "Worker exited unexpectedly" and counts one file fewer than it collected,
 * but names neither the file nor the test: a CI log then says nothing to act on. This
 * reporter, beside the default one, prints at the end of the run one line for each file
 * that never finished and the tests in it that had started and not ended.
 */
import type { Reporter, TestCase, TestModule } from 'vitest/node';

export default class UnfinishedReporter implements Reporter {
  private readonly started = new Set<TestModule>();
  private readonly ended = new Set<TestModule>();
  private readonly running = new Map<TestModule, Set<string>>();

  onTestModuleStart(module: TestModule): void {
    this.started.add(module);
  }

  onTestModuleEnd(module: TestModule): void {
    this.ended.add(module);
  }

  onTestCaseReady(test: TestCase): void {
    const names = this.running.get(test.module) ?? new Set<string>();
    names.add(test.fullName);
    this.running.set(test.module, names);
  }

  onTestCaseResult(test: TestCase): void {
    this.running.get(test.module)?.delete(test.fullName);
  }

  onTestRunEnd(): void {
    for (const module of this.started) {
      if (this.ended.has(module)) continue;
      const open = [...(this.running.get(module) ?? [])];
      // Results reach the reporter in batches: a test may have run and not been heard of.
      const where = open.length > 0 ? `; started and not ended: ${open.map((n) => JSON.stringify(n)).join(', ')}` : '';
      console.error(`[unfinished] ${module.project.name} ${module.moduleId}: its worker ended before the file did${where}`);
    }
  }
}
