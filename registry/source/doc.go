// Package source opens a registry.Querier for a catalog path, whatever
// its kind: a declarative config directory (served by declcfgquery) or a
// legacy sqlite index file (served by legacyquery). It is what serve and
// parity use to accept either kind of input. It prints nothing; callers
// print the sqlite deprecation warning (legacy.WarnDeprecated).
package source
