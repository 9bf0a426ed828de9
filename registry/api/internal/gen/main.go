// Command gen regenerates registry.pb.go and registry_grpc.pb.go from
// registry.proto without protoc: protocompile parses and links the proto,
// protoc-gen-go's generator runs in process, and the protoc-gen-go-grpc
// plugin (a go.mod tool) is fed the same CodeGeneratorRequest on stdin.
// Everything comes from Go modules, so `go generate` works on any machine
// with the Go toolchain.
//
// Usage (from registry/api, as go:generate runs it):
//
//	go run ./internal/gen -proto registry.proto -out .
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/bufbuild/protocompile"
	gengo "google.golang.org/protobuf/cmd/protoc-gen-go/internal_gengo"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/pluginpb"
)

func main() {
	protoPath := flag.String("proto", "registry.proto", "proto file to compile")
	outDir := flag.String("out", ".", "directory the generated files are written to")
	flag.Parse()
	if err := run(context.Background(), *protoPath, *outDir); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, protoPath, outDir string) error {
	files, err := generate(ctx, protoPath)
	if err != nil {
		return err
	}
	for name, content := range files {
		out := filepath.Join(outDir, name)
		if err := os.WriteFile(out, content, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", out, err)
		}
	}
	return nil
}

// generate compiles protoPath and returns the generated files by base name.
func generate(ctx context.Context, protoPath string) (map[string][]byte, error) {
	req, err := codeGeneratorRequest(ctx, protoPath)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	if err := generateGo(req, out); err != nil {
		return nil, err
	}
	if err := generateGRPC(ctx, req, out); err != nil {
		return nil, err
	}
	return out, nil
}

// codeGeneratorRequest compiles the proto (with source info, so comments
// reach the generated code) into the request a protoc plugin expects.
func codeGeneratorRequest(ctx context.Context, protoPath string) (*pluginpb.CodeGeneratorRequest, error) {
	dir, name := filepath.Split(protoPath)
	if dir == "" {
		dir = "."
	}
	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{dir}}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	linked, err := c.Compile(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", protoPath, err)
	}
	req := &pluginpb.CodeGeneratorRequest{
		FileToGenerate: []string{name},
		Parameter:      proto.String("paths=source_relative"),
	}
	// Dependencies first, as protoc orders them.
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := 0; i < imports.Len(); i++ {
			add(imports.Get(i).FileDescriptor)
		}
		req.ProtoFile = append(req.ProtoFile, protodesc.ToFileDescriptorProto(fd))
	}
	for _, f := range linked {
		add(f)
	}
	return req, nil
}

// generateGo runs protoc-gen-go's generator in process.
func generateGo(req *pluginpb.CodeGeneratorRequest, out map[string][]byte) error {
	plugin, err := protogen.Options{}.New(req)
	if err != nil {
		return fmt.Errorf("protoc-gen-go: %w", err)
	}
	for _, f := range plugin.Files {
		if f.Generate {
			gengo.GenerateFile(plugin, f)
		}
	}
	plugin.SupportedFeatures = gengo.SupportedFeatures
	return collect("protoc-gen-go", plugin.Response(), out)
}

// generateGRPC runs the protoc-gen-go-grpc tool declared in go.mod.
func generateGRPC(ctx context.Context, req *pluginpb.CodeGeneratorRequest, out map[string][]byte) error {
	in, err := proto.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode plugin request: %w", err)
	}
	cmd := exec.CommandContext(ctx, "go", "tool", "protoc-gen-go-grpc")
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go tool protoc-gen-go-grpc: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	resp := &pluginpb.CodeGeneratorResponse{}
	if err := proto.Unmarshal(stdout.Bytes(), resp); err != nil {
		return fmt.Errorf("decode protoc-gen-go-grpc response: %w", err)
	}
	return collect("protoc-gen-go-grpc", resp, out)
}

func collect(plugin string, resp *pluginpb.CodeGeneratorResponse, out map[string][]byte) error {
	if resp.Error != nil {
		return fmt.Errorf("%s: %s", plugin, resp.GetError())
	}
	for _, f := range resp.File {
		if f.GetInsertionPoint() != "" {
			return fmt.Errorf("%s: insertion points are not supported (%s)", plugin, f.GetName())
		}
		out[filepath.Base(f.GetName())] = []byte(f.GetContent())
	}
	return nil
}
