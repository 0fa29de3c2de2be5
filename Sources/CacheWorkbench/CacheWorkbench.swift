// `import CacheWorkbench`: the public API of every stage module under one name, as before the
// split into modules (docs/design.md, "Modules"). The product, BenchCLI, the examples and the
// documentation catalog import this.
@_exported import WorkbenchCore
@_exported import WorkbenchMetrics
@_exported import WorkbenchTraces
@_exported import WorkbenchHTTP
@_exported import WorkbenchBackends
@_exported import WorkbenchSimulation
@_exported import WorkbenchReports
@_exported import WorkbenchCommands
@_exported import WorkbenchExperiments
