// Package template renders and writes opm's catalog templates: the basic
// template (olm.template.basic: catalog blobs whose bundles are only image
// references), the semver template (olm.semver: bundle images sorted into
// candidate, fast and stable lists, channels and edges generated from their
// versions) and the substitutes template (olm.template.substitutes: a
// catalog plus bundles that substitute for others).
//
// Rendering follows opm v1.73's alpha render-template: the same schemas,
// the same graph algorithms, the same output once written with
// declcfg.WriteJSON or WriteYAML. Bundle references are turned into
// olm.bundle blobs by a BundleRenderer the caller supplies (the CLI pulls
// images daemonless), so the package itself does no I/O beyond reading
// refs of template entries. Errors name the template file, the entry and
// the field (*Error).
//
// The other direction: Convert writes a catalog's blobs as a basic or
// substitutes template (opm's alpha convert-template), and FromPackage
// turns one package of a catalog into the template that renders back to
// it, a semver template when the package's graph is exactly what the
// semver template generates and a basic template otherwise, with the
// reason.
package template
