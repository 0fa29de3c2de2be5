import BenchCLI

// The workbench's own command line, with the built-in backends only.
BenchCommandLine.main()
