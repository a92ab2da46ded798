package store

// SetAttr rewrites the attribution of the journal entry at seq: the runs
// and tool calls it named had ended when it was captured (a run ended as
// of an earlier moment). The entry's path, state and time stay as they
// were; so do the path index and the entries, which do not hold it.
func (w *Writer) SetAttr(seq uint64, attr Attr) error {
	c, err := w.Change(seq)
	if err != nil {
		return err
	}
	c.Attr = attr
	k, v := journalKey(seq), c.encode()
	if err := w.room(w.estimate(k, v)); err != nil {
		return err
	}
	return w.set(k, v)
}
