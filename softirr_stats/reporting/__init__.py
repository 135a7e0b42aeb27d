"""softirr_stats.reporting"""
