package install

// MCPApproval is where a runtime keeps the person's approval of a
// project's MCP servers, when it runs none of them unapproved: a list of
// approved server names under Key in the settings file File (relative to
// the project's root). ckpt integrate --project adds ckpt's server to it,
// as the runtime's own approval prompt would; --uninstall takes it out.
type MCPApproval struct {
	File, Key string
}

// Approve returns the data with MCPName in the Key list (made if need
// be); every other key and name stays. changed is false when it is there.
func (a MCPApproval) Approve(path string, data []byte) (out []byte, changed bool, err error) {
	doc, names, err := a.load(path, data)
	if err != nil {
		return nil, false, err
	}
	before := encode(doc)
	for _, n := range names {
		if n == MCPName {
			return result(data, before, doc)
		}
	}
	doc.set(a.Key, append(names, MCPName))
	return result(data, before, doc)
}

// Revoke returns the data without MCPName in the Key list; a list it
// empties goes too.
func (a MCPApproval) Revoke(path string, data []byte) (out []byte, changed bool, err error) {
	doc, names, err := a.load(path, data)
	if err != nil {
		return nil, false, err
	}
	if _, ok := doc.get(a.Key); !ok {
		return data, false, nil
	}
	before := encode(doc)
	var keep []any
	for _, n := range names {
		if n != MCPName {
			keep = append(keep, n)
		}
	}
	if len(keep) == 0 {
		doc.del(a.Key)
	} else {
		doc.set(a.Key, keep)
	}
	if out, changed, err = result(data, before, doc); !changed {
		return data, false, err
	}
	return out, changed, err
}

// Approved reports whether the data approve ckpt's server.
func (a MCPApproval) Approved(data []byte) bool {
	_, names, err := a.load("", data)
	if err != nil {
		return false
	}
	for _, n := range names {
		if n == MCPName {
			return true
		}
	}
	return false
}

func (a MCPApproval) load(path string, data []byte) (*object, []any, error) {
	doc, err := decodeObject(data)
	if err != nil {
		return nil, nil, &MalformedError{Path: path, Reason: "not a JSON object (" + err.Error() + ")"}
	}
	v, ok := doc.get(a.Key)
	if !ok {
		return doc, nil, nil
	}
	names, ok := v.([]any)
	if !ok {
		return nil, nil, &MalformedError{Path: path, Reason: `"` + a.Key + `" is not a list`}
	}
	return doc, append([]any(nil), names...), nil
}
