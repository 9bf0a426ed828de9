package parity

import (
	"fmt"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/operator-catalog/olmcat/registry/api"
)

func (d *differ) listPackages(a [2]answer) {
	if a[0].err != nil || a[1].err != nil {
		d.errorVsAnswer(a, RuleErrorVsAnswer, "package list")
		return
	}
	sets := [2]map[string]bool{toSet(a[0].names), toSet(a[1].names)}
	for s := range 2 {
		for _, n := range sortedOnly(sets[s], sets[1-s], strLess) {
			l, r := pick(s, n, "absent")
			d.add(RulePackageMissing, "["+n+"]", l, r)
		}
	}
}

func (d *differ) getPackage(a [2]answer) {
	if a[0].err != nil || a[1].err != nil {
		d.errorVsAnswer(a, RulePackageMissing, "package "+d.c.pkg)
		return
	}
	l, r := a[0].pkg, a[1].pkg
	if l.GetName() != r.GetName() {
		d.add(RuleFieldDiffers, ".name", l.GetName(), r.GetName())
	}
	if l.GetDefaultChannelName() != r.GetDefaultChannelName() {
		d.add(RuleDefaultChannel, ".defaultChannelName", l.GetDefaultChannelName(), r.GetDefaultChannelName())
	}
	d.deprecation(".deprecation", l.GetDeprecation(), r.GetDeprecation())
	chans := [2]map[string]*api.Channel{{}, {}}
	for s, p := range []*api.Package{l, r} {
		for _, ch := range p.GetChannels() {
			chans[s][ch.GetName()] = ch
		}
	}
	names := map[string]bool{}
	for s := range 2 {
		for n := range chans[s] {
			names[n] = true
		}
	}
	for _, n := range sortedKeys(names, strLess) {
		lc, rc := chans[0][n], chans[1][n]
		path := ".channels[" + n + "]"
		switch {
		case lc == nil:
			d.add(RuleChannelMissing, path, "absent", "head "+rc.GetCsvName())
		case rc == nil:
			d.add(RuleChannelMissing, path, "head "+lc.GetCsvName(), "absent")
		default:
			if lc.GetCsvName() != rc.GetCsvName() {
				d.add(RuleHeadDiffers, path+".csvName", lc.GetCsvName(), rc.GetCsvName())
			}
			d.deprecation(path+".deprecation", lc.GetDeprecation(), rc.GetDeprecation())
		}
	}
	// Anything the proto has beyond the fields above (unknown fields of a
	// newer server) must match too.
	if diff := cmp.Diff(l, r, protocmp.Transform(),
		protocmp.IgnoreFields(&api.Package{}, "name", "channels", "defaultChannelName", "deprecation")); diff != "" {
		d.add(RuleFieldDiffers, ".", "see right", compact(diff))
	}
}

// deprecation compares deprecation messages; one missing is benign when
// the side lacking it may be the sqlite server.
func (d *differ) deprecation(path string, l, r *api.Deprecation) {
	switch {
	case l == nil && r == nil:
	case l == nil || r == nil:
		s := 0 // the side lacking it
		if r == nil {
			s = 1
		}
		rule := RuleFieldDiffers
		if d.cat.asym(s) {
			rule = RuleDeprecationFBCOnly
		}
		d.add(rule, path, depText(l), depText(r))
	case l.GetMessage() != r.GetMessage():
		d.add(RuleFieldDiffers, path, depText(l), depText(r))
	}
}

func depText(x *api.Deprecation) string {
	if x == nil {
		return "none"
	}
	return fmt.Sprintf("%q", x.GetMessage())
}
