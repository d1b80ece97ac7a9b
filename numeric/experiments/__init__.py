"""The experiments: data, the store of fits, the resumable grid, rates, slopes and figures."""
