namespace eksim::scenario {}
