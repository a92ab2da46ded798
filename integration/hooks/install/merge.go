package install

import (
	"bytes"
	"encoding/json"
)

// Merge returns the settings file data with ckpt's hooks for s.Runtime,
// running command, in place of any it had: each event's entry goes where
// ckpt's old entry of that event was, else at the end. Every other key
// and hook stays as it was. changed is false, and out is data itself,
// when the file already says exactly this. A file that is not a JSON
// object, or whose "hooks" is not an object, is a *MalformedError.
func Merge(s Spec, path string, data []byte, command string) (out []byte, changed bool, err error) {
	doc, hooks, err := load(path, data)
	if err != nil {
		return nil, false, err
	}
	before := encode(doc)
	if hooks == nil {
		hooks = newObject()
		doc.set("hooks", hooks)
	}
	at := strip(s, hooks, firstWord(command))
	for _, h := range s.Hooks {
		arr, _ := hooks.get(h.Event)
		list, ok := arr.([]any)
		if !ok {
			list = nil
		}
		pos, ok := at[h.Event]
		if !ok || pos > len(list) {
			pos = len(list)
		}
		list = append(list[:pos:pos], append([]any{entry(s, h, command)}, list[pos:]...)...)
		at[h.Event] = pos + 1
		hooks.set(h.Event, list)
	}
	dropEmptied(hooks, at)
	for k, v := range s.TopLevel {
		if _, ok := doc.get(k); !ok {
			doc.set(k, v)
		}
	}
	return result(data, before, doc)
}

// Remove returns the settings file data without ckpt's hooks for
// s.Runtime (self, when not "", is the running binary: its commands are
// ckpt's whatever its name). An event (and "hooks" itself) left empty by
// the removal goes too. changed is false, and out is data, when there
// were none.
func Remove(s Spec, path string, data []byte, self string) (out []byte, changed bool, err error) {
	doc, hooks, err := load(path, data)
	if err != nil {
		return nil, false, err
	}
	before := encode(doc)
	if hooks == nil {
		return data, false, nil
	}
	at := strip(s, hooks, self)
	if len(at) == 0 {
		return data, false, nil
	}
	dropEmptied(hooks, at)
	if len(hooks.keys) == 0 {
		doc.del("hooks")
	}
	return result(data, before, doc)
}

// Installed reports whether the settings data hold any ckpt hook of
// s.Runtime (self as for Remove). Unreadable data hold none.
func Installed(s Spec, data []byte, self string) bool {
	_, hooks, err := load("", data)
	if err != nil || hooks == nil {
		return false
	}
	return len(strip(s, hooks, self)) > 0
}

func load(path string, data []byte) (*object, *object, error) {
	doc, err := decodeObject(data)
	if err != nil {
		return nil, nil, &MalformedError{Path: path, Reason: "not a JSON object (" + err.Error() + ")"}
	}
	v, ok := doc.get("hooks")
	if !ok {
		return doc, nil, nil
	}
	hooks, ok := v.(*object)
	if !ok {
		return nil, nil, &MalformedError{Path: path, Reason: `"hooks" is not an object`}
	}
	return doc, hooks, nil
}

func result(data, before []byte, doc *object) ([]byte, bool, error) {
	after := encode(doc)
	if bytes.Equal(before, after) && len(bytes.TrimSpace(data)) > 0 {
		return data, false, nil
	}
	return after, true, nil
}

// strip takes ckpt's handlers of s.Runtime out of every event, and says,
// for each event it took one from, the index in the event's list where
// the first one was. An event whose list it empties keeps its place, with
// an empty list, for dropEmptied.
func strip(s Spec, hooks *object, self string) map[string]int {
	at := map[string]int{}
	for _, event := range append([]string(nil), hooks.keys...) {
		v, _ := hooks.get(event)
		list, ok := v.([]any)
		if !ok {
			continue // not an event (Gemini CLI's legacy "enabled", ...)
		}
		var kept []any
		for _, e := range list {
			keep, removed := stripEntry(s, e, self)
			if removed {
				if _, seen := at[event]; !seen {
					at[event] = len(kept)
				}
			}
			if keep != nil {
				kept = append(kept, keep)
			}
		}
		if _, took := at[event]; !took {
			continue
		}
		if kept == nil {
			kept = []any{}
		}
		hooks.set(event, kept) // in its place: Merge may fill it again
	}
	return at
}

// dropEmptied deletes the events strip emptied that are still empty.
func dropEmptied(hooks *object, at map[string]int) {
	for event := range at {
		if v, _ := hooks.get(event); v != nil {
			if list, ok := v.([]any); ok && len(list) == 0 {
				hooks.del(event)
			}
		}
	}
}

// stripEntry is one element of an event's list without ckpt's handlers
// (nil when nothing is left of it), and whether it had any.
func stripEntry(s Spec, e any, self string) (any, bool) {
	o, ok := e.(*object)
	if !ok {
		return e, false
	}
	if s.Layout == Flat {
		if isCkpt(s, o, self) {
			return nil, true
		}
		return e, false
	}
	v, _ := o.get("hooks")
	handlers, ok := v.([]any)
	if !ok {
		return e, false
	}
	var kept []any
	for _, h := range handlers {
		if ho, ok := h.(*object); ok && isCkpt(s, ho, self) {
			continue
		}
		kept = append(kept, h)
	}
	if len(kept) == len(handlers) {
		return e, false
	}
	if len(kept) == 0 {
		return nil, true
	}
	o.set("hooks", kept)
	return o, true
}

func isCkpt(s Spec, handler *object, self string) bool {
	c, _ := handler.get("command")
	cmd, ok := c.(string)
	return ok && IsCkptCommand(cmd, s.Runtime, self)
}

func firstWord(command string) string {
	if w := shellWords(command); len(w) > 0 {
		return w[0]
	}
	return ""
}

// entry is the list element that registers ckpt for one event.
func entry(s Spec, h Hook, command string) any {
	handler := newObject()
	if s.Layout == Grouped {
		if s.Name != "" {
			handler.set("name", s.Name)
		}
		handler.set("type", "command")
	}
	handler.set("command", command)
	if s.Layout == Flat && h.Matcher != "" {
		handler.set("matcher", h.Matcher)
	}
	if h.Timeout > 0 {
		handler.set("timeout", json.Number(itoa(h.Timeout)))
	}
	if s.Layout == Flat {
		return handler
	}
	group := newObject()
	if h.Matcher != "" {
		group.set("matcher", h.Matcher)
	}
	group.set("hooks", []any{handler})
	return group
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
