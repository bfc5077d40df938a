namespace eksim::report {}
