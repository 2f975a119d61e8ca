package emit

import (
	"fmt"
	"go/ast"
	"sort"
	"strings"
)

// declared lists what the Go file f declares at package level: its
// types, functions, variables and constants by name, and its methods as
// Type.Method.
func declared(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out = append(out, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							out = append(out, n.Name)
						}
					}
				}
			}
		case *ast.FuncDecl:
			switch {
			case d.Recv == nil && d.Name.Name == "init":
			case d.Recv == nil:
				out = append(out, d.Name.Name)
			case len(d.Recv.List) == 1:
				out = append(out, receiverName(d.Recv.List[0].Type)+"."+d.Name.Name)
			}
		}
	}
	return out
}

// receiverName returns the name of the type of a method receiver.
func receiverName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// RedeclaredError reports a generated package that would not compile
// because two declarations take one name. It is a bug in mcpgen: the IR
// keeps the names it derives from tools off the identifiers each part
// declares (Declared).
type RedeclaredError struct {
	// Name is the identifier, or Type.Method for a method.
	Name string
	// Files are the files that declare it, in name order; one file when it
	// declares the name twice.
	Files []string
}

func (e *RedeclaredError) Error() string {
	return fmt.Sprintf("generated code declares %s more than once (in %s), so it would not compile; this is a bug in mcpgen, nothing was written",
		e.Name, strings.Join(e.Files, " and "))
}

// checkDeclarations reports the first name, in order, that the files
// declare more than once; decls holds each file's declarations.
func checkDeclarations(decls map[string][]string) error {
	files := make([]string, 0, len(decls))
	for f := range decls {
		files = append(files, f)
	}
	sort.Strings(files)
	seen := map[string]string{}
	var dups []*RedeclaredError
	for _, f := range files {
		for _, n := range decls[f] {
			if first, ok := seen[n]; ok {
				in := []string{first, f}
				if first == f {
					in = in[:1]
				}
				dups = append(dups, &RedeclaredError{Name: n, Files: in})
				continue
			}
			seen[n] = f
		}
	}
	if len(dups) == 0 {
		return nil
	}
	sort.SliceStable(dups, func(i, j int) bool { return dups[i].Name < dups[j].Name })
	return dups[0]
}
