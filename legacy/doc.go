// Package legacy reads legacy operator-registry sqlite index databases (the
// "index.db" built by opm index add / opm registry add / the initializer)
// at every schema level, read-only. It computes what older levels lack from
// the CSV JSON and channel_entry, repairs known damage in memory (never in
// the file) and reports every repair, and serves typed rows package by
// package so that converters can stream.
package legacy
