"""ListTasks: the operation (`list_tasks`), one page of an owner's tasks read from the store's
listing index (`pages`), and the page tokens that carry a listing from page to page."""
