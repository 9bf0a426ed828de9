// Package action holds olmcat's command workflows as library entry
// points, as operator-registry's alpha/action does: each verb is a struct
// of typed options with Run(ctx) returning a typed result. The CLI
// (cmd/olmcat, the only package that may import this one) turns flags
// into options, calls Run and prints the result; everything between is
// here, or in the domain package an action calls.
//
// The index and registry verbs of opm v1.73 on declarative configs are
// IndexEdit (index add|rm|prune|prune-stranded|deprecatetruncate: a
// generated or built catalog), RegistryEdit (the same on a catalog
// directory, in place or to an output directory) with an Edit saying
// what changes (AddBundles, RemovePackages, KeepPackages, PruneStranded,
// DeprecateTruncate), IndexExport (the appregistry layout) and Add
// (olmcat add). Beside them are Convert (a catalog directory in another
// layout or format), Validate, BundleLoad (a bundle ConfigMap as its
// olm.bundle blob), BundleUnpack (a bundle image unpacked on a cluster
// by OLM's Job), BundleValidate (opm alpha bundle validate and unpack: a
// bundle image pulled, validated and copied to a directory), Build (a catalog image), BuildToolImage (olmcat's own
// image), BundleBuild (a bundle image), List (opm alpha list's model of
// an index) and Migrate (a sqlite index, or a catalog image, as a
// declarative config directory).
//
// The verbs that read catalogs as opm's render family does are Render
// (catalogs and bundles as one blob stream, with Legacy telling what a
// sqlite input was), RenderTemplate and ConvertTemplate (opm alpha
// render-template and convert-template), VerifyTemplates (templates a
// migration wrote, rendered back and compared), Graph (olmcat graph) and
// RenderGraph (opm alpha render-graph); Init (opm init's olm.package
// blob) and GenerateDockerfile (opm generate dockerfile) start one.
//
// V1Check reports, package by package, whether OLM v1 installs what
// catalogs offer (package declcfg/v1check).
//
// The serving verbs are Parity (two catalogs compared call by call over
// the registry API) and Serve, in package action/serve so that the slim
// build runs it without linking this package's sqlite reader.
//
// Conventions every action follows:
//
//   - One struct per verb, named for it. Its exported fields are the
//     options, typed (indexop.Mode, not a flag's string), their zero
//     values the defaults where there is one; Env carries what the
//     program running it provides. Run(ctx) returns a result struct
//     (possibly empty, so fields can be added) and an error. An action
//     whose options can be refused before anything is read has Check
//     (or, where what it finds is of use, a method returning it, as
//     RegistryEdit.Target), which Run calls too; the CLI calls it first
//     where it prints its own notes in between.
//   - No flags, no terminal, no os.Exit, no environment variables: an
//     action tells what it does through Env.Log, one whole line per call,
//     in order, as it happens, and shows long steps through
//     Env.Progress; it takes write locks through Env.Lock and resolves
//     its arguments with package input, pulling images with
//     Env.ImageOptions (built once by the caller, as crane's root builds
//     its options). Its messages name no flag and no olmcat command.
//   - The errors of resolving and pulling (*input.PullError,
//     *input.BundleError, Env.ImageOptions') are returned as they are,
//     wrapped only in context, for the caller to word; the others of
//     package input an action words itself.
//   - Errors are returned, never printed, and classified by kind
//     (KindOf): KindFailed, the default of every error (the input or
//     output is invalid, a check failed), KindUsage (the options ask for
//     what cannot work) and KindPartial (part of the output was written,
//     and the message says which). An error one option resolves names
//     it in Error.Option as "Type.Field" (e.g. "Generate.Force"). The CLI
//     maps kinds to exit codes, options to flags and pull errors to its
//     hints in one place (cmd/olmcat/actions.go, actionError).
//   - Logic that belongs to a domain package lives there and the action
//     stays thin: the catalog operations and the appregistry layout in
//     declcfg/indexop, the catalog writers in declcfg. An action resolves
//     its inputs, locks its output, reads, applies and writes.
//   - Tests are table-driven on real files, in this package; the CLI's
//     tests stay with the CLI.
package action
